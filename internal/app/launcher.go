package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/tools"
)

// launcher runs every process coder starts for the model (bash calls,
// subagents' too, !cmd, auto-verify) in the OS sandbox: the profile comes
// from the configuration and the call's mode (plan: the workspace
// read-only too), with one private temp dir per session.
//
// The control files are guarded against one baseline, taken when no
// sandboxed process runs and shared by those that overlap (a background
// task and the calls made meanwhile): each call's end puts back whatever
// changed since while a process ran, so a task cannot plant a file that a
// later snapshot would then keep. The baseline is journaled until the last
// process ends, so a coder that dies first has it restored at the next
// start; what was put back, and what could not be checked, is told to the
// person as well as to the model.
type launcher struct {
	loaded  *config.Loaded
	secrets []string
	// notify tells the person (a notice); nil until the front end is known.
	notify func(string)

	mu     sync.Mutex
	tmp    string
	active int
	guard  *sandbox.Guard
	// releases are the guard's restores still to run after processes
	// ended; Close waits for them.
	releases sync.WaitGroup
}

func newLauncher(l *config.Loaded, secretValues []string) *launcher {
	return &launcher{loaded: l, secrets: secretValues}
}

// Launch implements tools.Launcher.
func (l *launcher) Launch(ctx context.Context, c *tools.Call, argv, env []string, stdout, stderr io.Writer, background bool) (tools.Proc, error) {
	p, err := l.profile(c, env)
	if err != nil {
		return nil, err
	}
	// A command the person let run outside the sandbox takes no part in
	// guarding the protected paths: what it changes there is kept, also
	// when a sandboxed process that overlapped it ends.
	outside := c.Unsandboxed
	if !outside {
		scanned, err := l.acquire()
		if err != nil {
			return nil, err
		}
		p.Scanned = scanned
	}
	proc, err := start(ctx, p, argv, stdout, stderr, background)
	if err != nil {
		if !outside {
			_, _ = l.release()
		}
		return nil, err
	}
	sp := &sandboxProc{Process: proc, profile: p, released: make(chan struct{})}
	// Released when it ends, whoever waits for it: a background task's
	// changes to protected paths are put back even if nobody reads it.
	l.releases.Add(1)
	go func() {
		defer l.releases.Done()
		<-proc.Done()
		if outside {
			sp.guardErr = l.acceptAll()
		} else {
			sp.changes, sp.guardErr = l.release()
		}
		close(sp.released)
	}()
	return sp, nil
}

// start starts argv in sandbox p.
func start(ctx context.Context, p sandbox.Profile, argv []string, stdout, stderr io.Writer, background bool) (*sandbox.Process, error) {
	var cmd *exec.Cmd
	var err error
	if background {
		cmd, err = sandbox.Background(p, argv)
	} else {
		cmd, err = sandbox.Command(ctx, p, argv)
	}
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return sandbox.Start(cmd)
}

// profile is the sandbox for call c: plan mode's read-only workspace, and
// no OS sandbox (containment only) for a call the person let run outside.
func (l *launcher) profile(c *tools.Call, env []string) (sandbox.Profile, error) {
	mode := "build"
	if c.ReadOnlyWorkspace {
		mode = "plan"
	}
	tmp, err := l.tempDir()
	if err != nil {
		return sandbox.Profile{}, err
	}
	p := sandboxProfile(l.loaded, mode, tmp)
	p.Env, p.Secrets = env, l.secrets
	if c.Unsandboxed {
		p.Level = sandbox.LevelNone
	}
	return p, nil
}

// tempDir is the session's private TMPDIR, made at the first command.
func (l *launcher) tempDir() (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tmp != "" {
		return l.tmp, nil
	}
	tmp, err := os.MkdirTemp("", "coder-session-")
	if err != nil {
		return "", err
	}
	l.tmp = tmp
	return tmp, nil
}

// acquire counts a process in, taking the baseline of the control files
// when it is the only one, and returns what the baseline's scan found for
// the call's mounts. The baseline is always the build-mode one: a
// plan-mode call may overlap a task started in build mode.
func (l *launcher) acquire() (*sandbox.Coverage, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active == 0 {
		g, err := sandbox.WatchJournaled(sandboxProfile(l.loaded, "build", l.tmp), journalDir(l.loaded))
		if err != nil {
			return nil, err
		}
		l.guard = g
	}
	l.active++
	return l.guard.Coverage(), nil
}

// release counts a process out and puts the control files back as the
// baseline has them.
func (l *launcher) release() ([]string, error) {
	l.mu.Lock()
	changes, err := l.guard.Restore()
	if l.active--; l.active == 0 {
		l.guard.Close()
		l.guard = nil
	}
	l.mu.Unlock()
	l.tell(changes, err)
	return changes, err
}

// tell says to the person what the guard did: the model's result says it
// too, but the workspace is the person's.
func (l *launcher) tell(changes []string, err error) {
	if l.notify == nil {
		return
	}
	for _, c := range changes {
		l.notify("sandbox: " + c)
	}
	if err != nil {
		l.notify("sandbox: coder could not check every control file; look at them before you run git or coder here: " + err.Error())
	}
}

// recoverJournals puts back what the sandboxed processes of a coder that
// ended early (killed, crashed) left in the control files, and returns
// what it did as notices for the start of the session.
func (l *launcher) recoverJournals() []error {
	changes, err := sandbox.RecoverJournals(journalDir(l.loaded), sandboxProfile(l.loaded, "build", ""))
	var out []error
	for _, c := range changes {
		out = append(out, errors.New("sandbox, after a coder that ended early: "+c))
	}
	switch {
	case errors.Is(err, sandbox.ErrJournalWritable):
		out = append(out, err)
	case err != nil:
		out = append(out, fmt.Errorf("sandbox, after a coder that ended early: could not check every control file: %w", err))
	}
	return out
}

// acceptAll keeps what a command run outside the sandbox changed in the
// protected paths, if sandboxed processes still run.
func (l *launcher) acceptAll() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.guard == nil {
		return nil
	}
	return l.guard.AcceptAll()
}

// Accept keeps a change coder itself made to a protected path (an approval
// remembered in .coder/config.json) while a sandboxed process runs.
func (l *launcher) Accept(path string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.guard == nil {
		return nil
	}
	return l.guard.Accept(path)
}

// Close waits for the last restores and removes the session's temp dir;
// the tasks are stopped before.
func (l *launcher) Close() {
	l.releases.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tmp != "" {
		_ = os.RemoveAll(l.tmp)
		l.tmp = ""
	}
}

// sandboxProc is a started sandboxed command.
type sandboxProc struct {
	*sandbox.Process
	profile  sandbox.Profile
	released chan struct{}
	changes  []string
	guardErr error
}

// Finish says what the sandbox did: protected paths put back, and a failure
// that looks like one of its refusals.
func (p *sandboxProc) Finish(stderr string) (notes []string, refused bool) {
	<-p.released
	return sandboxNotes(p.profile, p.ExitCode(), stderr, p.changes, p.guardErr)
}

// sandboxNotes are the notes for the model on a command that ended with
// exitCode in sandbox profile: the control files the guard put back, a
// failed check, and a failure that looks like the sandbox's refusal.
func sandboxNotes(profile sandbox.Profile, exitCode int, stderr string, changes []string, guardErr error) (notes []string, refused bool) {
	if len(changes) > 0 {
		notes = append(notes, "coder keeps git's, coder's and MCP's control files read-only for commands (at any depth), "+
			"so it undid what changed there while the command ran: "+strings.Join(changes, "; ")+".")
	}
	if guardErr != nil {
		notes = append(notes, "coder could not check its control files (the person has been told): "+guardErr.Error())
	}
	if effectiveReport(profile).Level == sandbox.LevelNone {
		return notes, false // nothing confined it
	}
	if d, ok := sandbox.Explain(profile, exitCode, stderr); ok {
		notes = append(notes, d.Message)
		refused = d.Kind != "setup"
	}
	return notes, refused
}

var _ tools.Launcher = (*launcher)(nil)
