//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

var errNotLinux = errors.New("no OS sandbox on " + runtime.GOOS + " (namespaces and Landlock are Linux-only)")

func landlockABI() (int, string) { return 0, errNotLinux.Error() }

func probeNamespaces(int) error { return errNotLinux }

// sysProcAttr: a process group of its own, so the caller can end it.
func sysProcAttr(spec) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func runNamespaced(spec, []string) int { return helperFail(errNotLinux) }

func runContained(s spec, argv []string) int { return restrictAndExec(s, argv) }

// restrictAndExec without a sandbox: run the command and pass its code on.
func restrictAndExec(_ spec, argv []string) int {
	if len(argv) == 0 {
		return 0
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		return helperFail(err)
	}
	return ExitCode(cmd.ProcessState)
}

func helperFail(err error) int {
	fmt.Fprintf(os.Stderr, "%s%v\n", helperPrefix, err)
	return helperFailed
}
