package sandbox

import (
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// Process is a started sandbox command.
type Process struct {
	cmd  *exec.Cmd // nil for a command run in a kept sandbox (Warm)
	done chan struct{}
	err  error
	// A command in a kept sandbox: its exit code, and how it is stopped.
	code int
	stop func()
}

// Start starts cmd (from Command or Background) from an OS thread that
// stays alive, locked, until cmd has ended: the kernel sends the helper its
// parent-death signal when the thread that started it exits, so starting it
// from an ordinary goroutine could kill it early.
func Start(cmd *exec.Cmd) (*Process, error) {
	p := &Process{cmd: cmd, done: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Never unlocked: the thread ends with this goroutine, after cmd.
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		release := holdTree(cmd)
		started <- nil
		p.err = cmd.Wait()
		release()
		if ExitCode(cmd.ProcessState) == helper.Failed {
			// The helper could not set the sandbox up (or the command
			// exited 125): the system may have changed in a way the
			// probe cache's key does not see, so the next start probes.
			forgetProbeCache()
		}
		close(p.done)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// Done is closed when the sandbox has ended.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the sandbox to end and returns exec's error for it.
func (p *Process) Wait() error {
	<-p.done
	return p.err
}

// ExitCode is the command's exit code, 128+N when signal N ended it, -1
// while it runs.
func (p *Process) ExitCode() int {
	select {
	case <-p.done:
		if p.cmd == nil {
			return p.code
		}
		return ExitCode(p.cmd.ProcessState)
	default:
		return -1
	}
}

// Stop ends the sandbox and everything in it: SIGTERM to the helper, which
// passes it on and kills what is left after a grace period, then SIGKILL
// if the helper itself is still there. It returns once the sandbox ended.
func (p *Process) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	if p.stop != nil {
		p.stop()
		return
	}
	_ = terminate(p.cmd.Process)
	t := time.NewTimer(3 * helper.StopGrace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// ExitCode is a finished process's exit code, 128+N when signal N ended
// it, -1 when unknown.
func ExitCode(ps *os.ProcessState) int { return helper.ExitCode(ps) }
