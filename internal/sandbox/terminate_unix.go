//go:build unix

package sandbox

import (
	"os"
	"os/exec"
	"syscall"
)

// terminate asks the helper to end the sandbox: SIGTERM lets it end the
// sandbox's processes itself (without namespaces a SIGKILLed helper could
// not). A helper that is PID 1 of its namespaces gets it only once it
// catches it (untilCatching).
func terminate(p *os.Process) error {
	untilCatching(p.Pid, syscall.SIGTERM)
	return p.Signal(syscall.SIGTERM)
}

// holdTree: on Unix the helper itself ends its tree (and coder's death
// reaches it: the parent-death signal on Linux, polling elsewhere).
func holdTree(*exec.Cmd) (release func()) { return func() {} }
