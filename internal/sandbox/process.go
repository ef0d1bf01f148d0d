package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// Process is a started sandbox command.
type Process struct {
	cmd  *exec.Cmd // nil for a command run in a kept sandbox (Warm)
	done chan struct{}
	end  sync.Once
	err  error
	code int // the command's exit code, once done
	// How a command in a kept sandbox is stopped.
	stop func()
}

// Start starts cmd (from Command or Background) from an OS thread that
// stays alive, locked, until cmd has ended: the kernel sends the helper its
// parent-death signal when the thread that started it exits, so starting it
// from an ordinary goroutine could kill it early.
//
// A one-command helper in new namespaces says when the sandbox has ended
// (withStatus): the Process is done then, its output read to the end,
// while the helper's exit tears its namespaces down.
func Start(cmd *exec.Cmd) (*Process, error) {
	p := &Process{cmd: cmd, done: make(chan struct{})}
	status, err := withStatus(cmd)
	if err != nil {
		return nil, err
	}
	var out outputs
	var childEnds []*os.File
	if status != nil {
		if childEnds, err = out.own(cmd); err != nil {
			closeAll(childEnds)
			out.close()
			status.close()
			return nil, err
		}
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// Never unlocked: the thread ends with this goroutine, after cmd.
		err := cmd.Start()
		closeAll(childEnds) // the child has its own copies
		if err != nil {
			if status != nil {
				status.close()
				out.drain()
			}
			started <- err
			return
		}
		release := holdTree(cmd)
		started <- nil
		if status != nil {
			status.started()
			go func() {
				if code, ok := status.read(); ok {
					out.drain()
					p.finish(code, exitError(code))
				}
			}()
		}
		err = cmd.Wait()
		release()
		out.drain()
		p.finish(ExitCode(cmd.ProcessState), err)
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return p, nil
}

// finish ends p with the command's code, once: from the helper's word or
// from its exit, whichever comes first.
func (p *Process) finish(code int, err error) {
	p.end.Do(func() {
		if p.cmd != nil && code == helper.Failed {
			// The helper could not set the sandbox up (or the command
			// exited 125): the system may have changed in a way the
			// probe cache's key does not see, so the next start probes.
			forgetProbeCache()
		}
		p.code, p.err = code, err
		close(p.done)
	})
}

// exitError is what exec says of a command that exited with code.
func exitError(code int) error {
	if code == 0 {
		return nil
	}
	return errors.New("exit status " + strconv.Itoa(code))
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
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
		return p.code
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
