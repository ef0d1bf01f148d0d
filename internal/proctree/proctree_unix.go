//go:build unix

package proctree

import (
	"os/exec"
	"syscall"
)

type sysTree struct{}

// prepare: the command leads a process group (or a session) of its own,
// so one signal to the group reaches what it started.
func prepare(cmd *exec.Cmd, session bool) {
	if session {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
}

func (t *Tree) attach() error { return nil }

// Terminate asks every process of the tree to end (SIGTERM to the group).
func (t *Tree) Terminate() { _ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGTERM) }

// Kill ends every process of the tree at once (SIGKILL to the group). It
// may be called again, and after the root has exited: what is left of the
// group still dies.
func (t *Tree) Kill() { _ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL) }

// Release frees what the tree holds (nothing on Unix); call it once the
// tree is no longer needed.
func (t *Tree) Release() {}

// Alive reports whether a process of the tree is still running.
func (t *Tree) Alive() bool { return syscall.Kill(-t.cmd.Process.Pid, 0) == nil }
