package helper

import "syscall"

// StatusFD is where a helper with Spec.Status writes the command's exit
// code.
const StatusFD = 3

// reportStatus tells coder the sandbox has ended before the helper's own
// exit, which tears down its namespaces (its mounts, its PID namespace)
// and its memory: most of a millisecond that coder need not wait for.
//
// The sandbox has ended when the helper, PID 1, has no child left: endAll
// has sent SIGKILL to every other process in the namespace, which a fork
// cannot escape (the kernel fails a fork whose parent has a fatal signal
// pending), and orphans are PID 1's to reap, so reap closes exits only
// when no other process is left in the namespace. Then nothing can write
// the workspace any more. The standard streams are closed first, so that
// coder's readers of the command's output see its end when the code
// arrives; the helper writes nothing after this.
func reportStatus(exits <-chan int, code int) {
	for range exits {
	}
	for fd := 0; fd <= 2; fd++ {
		_ = syscall.Close(fd)
	}
	_, _ = syscall.Write(StatusFD, []byte{byte(code)})
}
