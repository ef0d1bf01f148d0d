package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/acp"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/tools"
)

// terminalSandboxArg is the hidden first argument of what coder asks an
// editor's terminal to run: `coder __sandbox-terminal PROFILE -- COMMAND...`
// starts COMMAND in exactly the sandbox a bash call of the session gets
// (PROFILE is its JSON: paths and switches, never an environment or a
// secret), so the kernel's confinement holds whoever starts the process.
const terminalSandboxArg = "__sandbox-terminal"

// terminalLauncher runs the model's foreground commands in an editor's
// terminal (coder acp, when the editor offers terminals): the editor shows
// the output as it comes and kills the command when asked, while the
// command itself runs inside coder's sandbox through terminalSandboxArg.
// coder keeps what it guarantees: the protected paths are guarded around
// the call here, as its own launcher does, and the model's result is the
// terminal's output and exit status. Background tasks and hooks are not
// the editor's to show: they start through the sandbox launcher.
type terminalLauncher struct {
	*launcher
	open acp.Terminals
	// outputLimit is how much output the editor keeps for the model.
	outputLimit int
}

// Launch implements tools.Launcher.
func (t *terminalLauncher) Launch(ctx context.Context, c *tools.Call, argv, env []string, stdout, stderr io.Writer, background bool) (tools.Proc, error) {
	if background {
		return t.launcher.Launch(ctx, c, argv, env, stdout, stderr, background)
	}
	p, err := t.profile(c, env)
	if err != nil {
		return nil, err
	}
	outside := c.Unsandboxed
	if !outside {
		scanned, err := t.acquire()
		if err != nil {
			return nil, err
		}
		// The terminal's coder mounts what the baseline's scan found.
		p.Scanned = scanned
	}
	term, err := t.openTerminal(ctx, p, argv)
	if err != nil {
		if !outside {
			_, _ = t.release()
		}
		return nil, err
	}
	tools.ShowTerminal(ctx, term.ID())
	waitCtx, stopWaiting := context.WithCancel(context.Background())
	proc := &terminalProc{l: t.launcher, term: term, profile: p, outside: outside,
		stdout: stdout, stderr: stderr, exit: -1, done: make(chan struct{}), stopWaiting: stopWaiting}
	go proc.run(waitCtx)
	return proc, nil
}

// openTerminal starts argv in sandbox p in a terminal of the editor's.
func (t *terminalLauncher) openTerminal(ctx context.Context, p sandbox.Profile, argv []string) (*acp.Terminal, error) {
	cmd, err := terminalCommand(p, argv)
	if err != nil {
		return nil, err
	}
	cmd.OutputLimit = t.outputLimit
	term, err := t.open(ctx, cmd)
	if err != nil {
		return nil, fmt.Errorf("the editor's terminal: %w", err)
	}
	return term, nil
}

// terminalCommand is the terminal command that runs argv in sandbox p.
// The command's environment goes as the terminal's, which the sandbox
// filters again (secret-named variables never enter it).
func terminalCommand(p sandbox.Profile, argv []string) (acp.TerminalCommand, error) {
	exe, err := os.Executable()
	if err != nil {
		return acp.TerminalCommand{}, fmt.Errorf("finding coder's executable: %w", err)
	}
	env := p.Env
	p.Env, p.Secrets = nil, nil
	spec, err := json.Marshal(p)
	if err != nil {
		return acp.TerminalCommand{}, err
	}
	args := append([]string{terminalSandboxArg, string(spec), "--"}, argv...)
	return acp.TerminalCommand{Command: exe, Args: args, Env: env, Cwd: p.Workspace}, nil
}

// runTerminalSandbox is `coder __sandbox-terminal PROFILE -- COMMAND...`,
// run by an editor's terminal: COMMAND in the sandbox PROFILE describes,
// its output on this process's, its exit code this process's (125 when
// the sandbox could not be set up). Stdin stays closed, as for a bash call.
func runTerminalSandbox(ctx context.Context, args []string, stdio IO) int {
	fail := func(err error) int {
		fmt.Fprintln(stdio.Err, "coder sandbox: "+err.Error())
		return ExitSandboxFailed
	}
	if len(args) < 3 || args[1] != "--" {
		return fail(errors.New("usage: coder " + terminalSandboxArg + " PROFILE -- COMMAND [ARGS...]"))
	}
	var p sandbox.Profile
	if err := json.Unmarshal([]byte(args[0]), &p); err != nil {
		return fail(fmt.Errorf("bad profile: %w", err))
	}
	p.Env, p.Secrets = nil, nil // this process's environment, filtered by the sandbox
	cmd, err := sandbox.Command(ctx, p, args[2:])
	if err != nil {
		return fail(err)
	}
	cmd.Stdout, cmd.Stderr = stdio.Out, stdio.Err
	proc, err := sandbox.Start(cmd)
	if err != nil {
		return fail(err)
	}
	_ = proc.Wait()
	return proc.ExitCode()
}

// terminalProc is a command running in an editor's terminal.
type terminalProc struct {
	l       *launcher
	term    *acp.Terminal
	profile sandbox.Profile
	outside bool // the person let it run outside the sandbox
	stdout  io.Writer
	stderr  io.Writer
	kill    sync.Once
	done    chan struct{}
	// stopWaiting gives up on an editor that does not report the exit
	// after a kill.
	stopWaiting context.CancelFunc

	mu       sync.Mutex
	exit     int
	output   string
	changes  []string
	guardErr error
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
	var changes []string
	var guardErr error
	if p.outside {
		guardErr = p.l.acceptAll()
	} else {
		changes, guardErr = p.l.release()
	}
	p.mu.Lock()
	p.exit, p.output, p.changes, p.guardErr = exitStatus(ex, waitErr), out, changes, guardErr
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
	return sandboxNotes(p.profile, p.exit, p.output, p.changes, p.guardErr)
}

var _ tools.Launcher = (*terminalLauncher)(nil)
