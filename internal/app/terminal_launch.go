package app

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/acp"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/launch"
	"github.com/coder-agent/coder/internal/sandbox/terminal"
	"github.com/coder-agent/coder/internal/tools"
)

// terminalLauncher runs the model's foreground commands in an editor's
// terminal (coder acp, when the editor offers terminals): the editor shows
// the output as it comes and kills the command when asked, while the
// command itself runs inside coder's sandbox through terminal.Arg.
// coder keeps what it guarantees: the protected paths are guarded around
// the call by a launch.Run, as the launcher's calls are, and the model's
// result is the terminal's output and exit status. Background tasks and hooks are not
// the editor's to show: they start through the sandbox launcher.
type terminalLauncher struct {
	*launch.Launcher
	open acp.Terminals
	// outputLimit is how much output the editor keeps for the model.
	outputLimit int
}

// Launch implements tools.Launcher.
func (t *terminalLauncher) Launch(ctx context.Context, c *tools.Call, argv, env []string, stdout, stderr io.Writer, background bool) (tools.Proc, error) {
	if background {
		return t.Launcher.Launch(ctx, c, argv, env, stdout, stderr, background)
	}
	// The terminal's coder mounts what the baseline's scan found
	// (r.Profile.Scanned).
	r, err := t.Begin(c.Sandbox, env)
	if err != nil {
		return nil, err
	}
	term, err := t.openTerminal(ctx, r.Profile, argv)
	if err != nil {
		r.Abort()
		return nil, err
	}
	tools.ShowTerminal(ctx, term.ID())
	waitCtx, stopWaiting := context.WithCancel(context.Background())
	proc := &terminalProc{sandbox: r, term: term,
		stdout: stdout, stderr: stderr, exit: -1, done: make(chan struct{}), stopWaiting: stopWaiting}
	go proc.run(waitCtx)
	return proc, nil
}

// openTerminal starts argv in sandbox p in a terminal of the editor's.
func (t *terminalLauncher) openTerminal(ctx context.Context, p sandbox.Profile, argv []string) (*acp.Terminal, error) {
	exe, args, env, err := terminal.Command(p, argv)
	if err != nil {
		return nil, err
	}
	cmd := acp.TerminalCommand{Command: exe, Args: args, Env: env, Cwd: p.Workspace, OutputLimit: t.outputLimit}
	term, err := t.open(ctx, cmd)
	if err != nil {
		return nil, fmt.Errorf("the editor's terminal: %w", err)
	}
	return term, nil
}

// terminalProc is a command running in an editor's terminal.
type terminalProc struct {
	sandbox *launch.Run
	term    *acp.Terminal
	stdout  io.Writer
	stderr  io.Writer
	kill    sync.Once
	done    chan struct{}
	// stopWaiting gives up on an editor that does not report the exit
	// after a kill.
	stopWaiting context.CancelFunc

	mu     sync.Mutex
	exit   int
	output string
}

// run waits for the command, hands its output to the call, releases the
// terminal and puts the protected paths back.
func (p *terminalProc) run(ctx context.Context) {
	defer close(p.done)
	ex, waitErr := p.term.Wait(ctx)
	out, truncated, outErr := p.term.Output()
	if truncated {
		out = "[earlier output truncated: the editor's terminal kept the end]\n" + out
	}
	_, _ = io.WriteString(p.stdout, out)
	for _, err := range []error{waitErr, outErr} {
		if err != nil {
			fmt.Fprintf(p.stderr, "coder: the editor's terminal failed: %v\n", err)
		}
	}
	_ = p.term.Release()
	p.stopWaiting()
	p.sandbox.End()
	p.mu.Lock()
	p.exit, p.output = exitStatus(ex, waitErr), out
	p.mu.Unlock()
}

// exitStatus is a terminal's exit as a bash call reports it: the code,
// 128+N for signal N, -1 when unknown.
func exitStatus(ex acp.TerminalExit, err error) int {
	switch {
	case err != nil:
		return -1
	case ex.Code != nil:
		return *ex.Code
	case ex.Signal != "":
		if n := signalNum(strings.ToUpper(ex.Signal)); n != 0 {
			return 128 + n
		}
		if n := signalNum("SIG" + strings.ToUpper(ex.Signal)); n != 0 {
			return 128 + n
		}
	}
	return -1
}

func (p *terminalProc) Done() <-chan struct{} { return p.done }

func (p *terminalProc) ExitCode() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit
}

// killGrace is how long a killed command's editor gets to report its exit.
const killGrace = 10 * time.Second

// Stop kills the command through the editor (terminal/kill) and returns
// once it has ended and the terminal is released, or the editor failed to
// say so in time.
func (p *terminalProc) Stop() {
	p.kill.Do(func() {
		_ = p.term.Kill()
		go func() {
			select {
			case <-p.done:
			case <-time.After(killGrace):
				p.stopWaiting()
			}
		}()
	})
	<-p.done
}

// Finish reads the terminal's output (stdout and stderr, as the terminal
// interleaved them) where the sandbox launcher reads stderr.
func (p *terminalProc) Finish(string) (notes []string, refused bool) {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sandbox.Notes(p.exit, p.output)
}

var _ tools.Launcher = (*terminalLauncher)(nil)
