package launch

import (
	"strings"

	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/workspace"
)

// Run is one process's place in the session's sandbox: its profile, and
// its part in guarding the protected paths. Every launch goes through
// one: Begin before the process starts, End once it has ended.
type Run struct {
	// Profile is the sandbox the process starts in.
	Profile sandbox.Profile
	l       *Launcher
	// outside: the process runs with FullAccess, which takes no part in
	// guarding the protected paths: what it changes there is kept, also
	// when a sandboxed process that overlapped it ends.
	outside  bool
	changes  []string
	guardErr error
}

// Begin is the run of a process with access a and environment env: its
// profile, counted in the guard of the protected paths (whose baseline's
// scan the profile reuses) unless it runs outside the sandbox.
func (l *Launcher) Begin(a sandbox.Policy, env []string) (*Run, error) {
	p, err := l.profile(a, env)
	if err != nil {
		return nil, err
	}
	r := &Run{Profile: p, l: l, outside: a == sandbox.FullAccess}
	if !r.outside {
		scanned, err := l.acquire()
		if err != nil {
			return nil, err
		}
		r.Profile.Scanned = scanned
	}
	return r, nil
}

// Abort counts out a run whose process did not start.
func (r *Run) Abort() {
	if !r.outside {
		_, _ = r.l.release()
	}
}

// End counts out a run whose process has ended: the protected paths are
// put back as the baseline has them (the person is told), or, for a
// process outside the sandbox, what it changed there is kept.
func (r *Run) End() {
	if r.outside {
		r.guardErr = r.l.acceptAll()
	} else {
		r.changes, r.guardErr = r.l.release()
	}
}

// Notes are the notes for the model on the run's command, ended (End) with
// exitCode and stderr: the control files the guard put back, a failed
// check, and a failure that looks like the sandbox's refusal.
func (r *Run) Notes(exitCode int, stderr string) (notes []string, refused bool) {
	if len(r.changes) > 0 {
		notes = append(notes, "coder keeps git's, coder's and MCP's control files read-only for commands (at any depth), "+
			"so it undid what changed there while the command ran: "+strings.Join(r.changes, "; ")+".")
	}
	if r.guardErr != nil {
		notes = append(notes, "coder could not check its control files (the person has been told): "+r.guardErr.Error())
	}
	if workspace.Report(r.Profile).Level == sandbox.LevelNone {
		return notes, false // nothing confined it
	}
	if d, ok := sandbox.Explain(r.Profile, exitCode, stderr); ok {
		notes = append(notes, d.Message)
		refused = d.Kind != "setup"
	}
	return notes, refused
}
