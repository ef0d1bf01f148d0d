//go:build windows

package sandbox

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"

	"github.com/coder-agent/coder/internal/proctree"
	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// sysProcAttr: a console process group of its own, so Ctrl+C in coder's
// console does not reach the command.
func sysProcAttr(helper.Spec) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// terminate stops the helper: Windows has no SIGTERM to send, so it is
// killed, and its Job Object (see runContained) ends the tree with it.
func terminate(p *os.Process) error { return p.Kill() }

// holdTree puts the started helper in a Job Object that coder holds open:
// if coder dies, Windows closes the handle and kills the helper and every
// process below it (the helper's own job is nested in this one).
func holdTree(cmd *exec.Cmd) (release func()) {
	job, err := proctree.JoinKillJob(cmd.Process.Pid)
	if err != nil {
		return func() {}
	}
	return func() { _ = windows.CloseHandle(job) }
}
