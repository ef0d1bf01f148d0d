//go:build !linux

package helper

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/coder-agent/coder/internal/proctree"
)

var errNotLinux = errors.New("no namespaces or Landlock on " + runtime.GOOS + " (Linux-only)")

// LandlockABI: Landlock is Linux's.
func LandlockABI() (int, string) { return 0, errNotLinux.Error() }

// runNamespaced: there are no namespaces here; the backend's confinement
// is already in argv (sandbox-exec on macOS), the helper contains.
func runNamespaced(s Spec, argv []string) int { return runContained(s, argv) }

func restrictAndExec(s Spec, argv []string) int { return runContained(s, argv) }

// keepOnlyStdio: what the command inherits here is left to the backend.
func keepOnlyStdio() error { return nil }

// containPoll is how often the helper checks that coder is still there
// and, for a long-lived sandbox, that a process of the tree is left.
const containPoll = 200 * time.Millisecond

// runContained runs the command as the root of a process tree of its own
// (a process group on Unix, a Job Object on Windows) and ends the whole
// tree when the command ends (a long-lived sandbox: when its last process
// ends), when it is told to stop (SIGTERM: the tree gets it, then SIGKILL
// after a grace period) and when coder goes away.
func runContained(s Spec, argv []string) int {
	if len(argv) == 0 {
		return 0
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	parent := os.Getppid()
	tree, err := proctree.Start(cmd, false)
	if err != nil {
		return fail("", err)
	}
	defer tree.Release()
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	tick := time.NewTicker(containPoll)
	defer tick.Stop()
	var kill <-chan time.Time
	for ended := false; ; {
		select {
		case <-exited:
			exited, ended = nil, true
		case <-stop:
			tree.Terminate()
			kill = time.After(StopGrace)
		case <-kill:
			tree.Kill()
		case <-tick.C:
			if os.Getppid() != parent {
				tree.Kill()
			}
		}
		if ended && (!s.LongLived || !tree.Alive()) {
			tree.Kill()
			return ExitCode(cmd.ProcessState)
		}
	}
}
