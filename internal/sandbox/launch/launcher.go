// Package launch is the exec seam: every process coder starts for the
// model (bash calls, subagents' too, !cmd, auto-verify, sandboxed hooks,
// language servers, an editor's terminals, `coder sandbox`) is launched
// here, in the sandbox profile this package builds from the configuration
// and the call's typed access (sandbox.Policy), with the protected paths
// guarded around it. The backend for the platform is the sandbox
// package's; app only wires this package in.
package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/workspace"
	"github.com/coder-agent/coder/internal/tools"
)

// Launcher runs every process coder starts for the model in the OS
// sandbox: the profile comes from the configuration and the call's access
// (plan mode: the workspace read-only too), with one private temp dir per
// session.
//
// The control files are guarded against one baseline, taken when no
// sandboxed process runs and shared by those that overlap (a background
// task and the calls made meanwhile): each call's end puts back whatever
// changed since while a process ran, so a task cannot plant a file that a
// later snapshot would then keep. The baseline is journaled until the last
// process ends, so a coder that dies first has it restored at the next
// start; what was put back, and what could not be checked, is told to the
// person as well as to the model.
type Launcher struct {
	loaded  *config.Loaded
	secrets []string
	// Notify tells the person (a notice); nil until the front end is known.
	Notify func(string)

	mu     sync.Mutex
	tmp    string
	active int
	guard  *sandbox.Guard
	// releases are the guard's restores still to run after processes
	// ended; Close waits for them.
	releases sync.WaitGroup
	// warm keeps the sandbox of the model's foreground commands set up
	// between them.
	warm sandbox.Warm
}

// New is the launcher of the model's commands in the workspace l loaded,
// keeping secretValues (API keys) out of them.
func New(l *config.Loaded, secretValues []string) *Launcher {
	return &Launcher{loaded: l, secrets: secretValues}
}

// Launch implements tools.Launcher.
func (l *Launcher) Launch(ctx context.Context, c *tools.Call, argv, env []string, stdout, stderr io.Writer, background bool) (tools.Proc, error) {
	r, err := l.Begin(c.Sandbox, env)
	if err != nil {
		return nil, err
	}
	proc, err := l.start(ctx, r.Profile, argv, stdout, stderr, background)
	if err != nil {
		r.Abort()
		return nil, err
	}
	sp := &sandboxProc{Process: proc, run: r, released: make(chan struct{})}
	// Released when it ends, whoever waits for it: a background task's
	// changes to protected paths are put back even if nobody reads it.
	l.releases.Add(1)
	go func() {
		defer l.releases.Done()
		<-proc.Done()
		r.End()
		close(sp.released)
	}()
	return sp, nil
}

// start starts argv in sandbox p: a foreground command in the sandbox
// kept set up between them (sandbox.Warm), a task in one of its own.
func (l *Launcher) start(ctx context.Context, p sandbox.Profile, argv []string, stdout, stderr io.Writer, background bool) (*sandbox.Process, error) {
	if !background {
		return l.warm.Start(ctx, p, argv, stdout, stderr)
	}
	cmd, err := sandbox.Background(p, argv)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return sandbox.Start(cmd)
}

// profile is the sandbox for a process with access a and environment env,
// in the session's temp dir.
func (l *Launcher) profile(a sandbox.Policy, env []string) (sandbox.Profile, error) {
	tmp, err := l.TempDir()
	if err != nil {
		return sandbox.Profile{}, err
	}
	p := workspace.Profile(l.loaded, a, tmp)
	p.Env, p.Secrets = env, l.secrets
	return p, nil
}

// TempDir is the session's private TMPDIR, made at the first command.
func (l *Launcher) TempDir() (string, error) {
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
func (l *Launcher) acquire() (*sandbox.Coverage, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.active == 0 {
		g, err := sandbox.WatchJournaled(workspace.Profile(l.loaded, sandbox.WorkspaceWrite, l.tmp), workspace.JournalDir(l.loaded))
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
func (l *Launcher) release() ([]string, error) {
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
func (l *Launcher) tell(changes []string, err error) {
	if l.Notify == nil {
		return
	}
	for _, c := range changes {
		l.Notify("sandbox: " + c)
	}
	if err != nil {
		l.Notify("sandbox: coder could not check every control file; look at them before you run git or coder here: " + err.Error())
	}
}

// RecoverJournals puts back what the sandboxed processes of a coder that
// ended early (killed, crashed) left in the control files, and returns
// what it did as notices for the start of the session.
func (l *Launcher) RecoverJournals() []error {
	changes, err := sandbox.RecoverJournals(workspace.JournalDir(l.loaded), workspace.Profile(l.loaded, sandbox.WorkspaceWrite, ""))
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
func (l *Launcher) acceptAll() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.guard == nil {
		return nil
	}
	return l.guard.AcceptAll()
}

// Accept keeps a change coder itself made to a protected path (an approval
// remembered in .coder/config.json) while a sandboxed process runs.
func (l *Launcher) Accept(path string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.guard == nil {
		return nil
	}
	return l.guard.Accept(path)
}

// Close waits for the last restores and removes the session's temp dir;
// the tasks are stopped before.
func (l *Launcher) Close() {
	l.warm.Close()
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
	run      *Run
	released chan struct{}
}

// Finish says what the sandbox did: protected paths put back, and a failure
// that looks like one of its refusals.
func (p *sandboxProc) Finish(stderr string) (notes []string, refused bool) {
	<-p.released
	return p.run.Notes(p.ExitCode(), stderr)
}

var _ tools.Launcher = (*Launcher)(nil)
