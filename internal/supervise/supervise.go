// Package supervise keeps a command's processes from outliving coder. The
// command runs under a supervisor — coder re-executed with a hidden argument
// — that leads the command's process group. The kernel sends the supervisor
// SIGTERM when coder dies, even by SIGKILL (Pdeathsig), and the supervisor
// then kills the whole group; a dead parent cannot clean up, a supervisor can.
package supervise

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// Arg is the hidden first argument: coder __supervise -- PROGRAM ARGS...
const Arg = "__supervise"

// MaybeRun turns this process into a supervisor when started as one; it
// then never returns. main calls it first.
func MaybeRun() {
	if len(os.Args) < 4 || os.Args[1] != Arg || os.Args[2] != "--" {
		return
	}
	os.Exit(run(os.Args[3:]))
}

func run(argv []string) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "coder: cannot start the command:", err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitCode(err)
	case <-sig:
		// Our group is the command's: kill it all, ourselves included.
		_ = syscall.Kill(0, syscall.SIGKILL)
		return 137
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err != nil {
		return 127
	}
	return 0
}

// Wrap returns cmd run under a supervisor started from executable self.
// The caller sets Dir, Env and I/O on the result, and must start it with
// SysProcAttr() so the group and the death signal are in place.
func Wrap(self string, cmd *exec.Cmd) *exec.Cmd {
	return exec.Command(self, append([]string{Arg, "--", cmd.Path}, cmd.Args[1:]...)...)
}

// SysProcAttr starts the supervisor in its own session (so its group is the
// command's) with SIGTERM as its parent-death signal.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
}
