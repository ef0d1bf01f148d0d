package tools

import (
	"context"
	"io"
	"os/exec"
	"time"

	"github.com/coder-agent/coder/internal/proctree"
	"github.com/coder-agent/coder/internal/sandbox"
)

// Launcher starts the processes of bash calls. coder's launcher
// (internal/sandbox/launch) runs them in its OS sandbox with the call's
// access (Call.Sandbox); Direct runs them as they are, for tests.
type Launcher interface {
	// Launch starts argv for call c (whose Sandbox decides what it may
	// change) with the environment env. A background process lives until
	// it ends or is stopped; another ends with everything it started.
	Launch(ctx context.Context, c *Call, argv, env []string, stdout, stderr io.Writer, background bool) (Proc, error)
}

// Proc is a started command.
type Proc interface {
	// Done is closed when it has ended.
	Done() <-chan struct{}
	// ExitCode is its exit code, 128+N when signal N ended it; -1 while it runs.
	ExitCode() int
	// Stop ends it and everything it started; it returns once it has ended.
	Stop()
	// Finish is called once after it ended, with what it wrote to stderr:
	// notes for the model (protected files put back, a refusal that looks
	// like the sandbox's), and whether the sandbox seems to have refused it.
	Finish(stderr string) (notes []string, refused bool)
}

// Direct starts commands without a sandbox, each in a session of its own
// (so in its own process group, without a controlling terminal); Stop
// sends the group SIGTERM, then SIGKILL after a grace period, and what is
// left of a foreground command's group is killed when its shell exits.
// Used by tests; coder's launcher is its sandbox.
type Direct struct{ Dir string }

// Launch implements Launcher.
func (d Direct) Launch(_ context.Context, _ *Call, argv, env []string, stdout, stderr io.Writer, background bool) (Proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = d.Dir, env, stdout, stderr
	// Background processes may keep the output pipes open after the shell
	// has exited: stop waiting for them after a while.
	cmd.WaitDelay = bashWaitDelay
	tree, err := proctree.Start(cmd, true)
	if err != nil {
		return nil, err
	}
	p := &directProc{cmd: cmd, tree: tree, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		if !background {
			tree.Kill()
			tree.Release()
		}
		close(p.done)
	}()
	return p, nil
}

type directProc struct {
	cmd  *exec.Cmd
	tree *proctree.Tree
	done chan struct{}
}

func (p *directProc) Done() <-chan struct{} { return p.done }

func (p *directProc) ExitCode() int {
	select {
	case <-p.done:
		return sandbox.ExitCode(p.cmd.ProcessState) // the exit_code the model reads
	default:
		return -1
	}
}

// Stop sends the process group SIGTERM, and SIGKILL once the shell has
// exited or the grace period is over, whichever comes first.
func (p *directProc) Stop() {
	p.tree.Terminate()
	grace := time.NewTimer(bashKillGrace)
	defer grace.Stop()
	select {
	case <-p.done:
		p.tree.Kill()
	case <-grace.C:
		p.tree.Kill()
		<-p.done
	}
	p.tree.Release()
}

func (p *directProc) Finish(string) ([]string, bool) { return nil, false }
