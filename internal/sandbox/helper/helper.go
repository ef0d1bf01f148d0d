// Package helper is the sandbox helper process: coder re-executed with a
// hidden first argument (Arg) and a Spec, which sets the OS sandbox up and
// runs the command in it (package sandbox builds the Spec and starts it).
//
// The helper runs from this package's init, not from main, and never
// returns then. Go initialises a package after those it imports and,
// among the ready ones, in import-path order; this package imports only
// standard packages that are initialised right after os (errors, os,
// os/signal, runtime, slices, strconv, sync, syscall, time, unsafe — not
// strings, bytes, path/filepath, fmt or os/exec, which pull in unicode or
// reflect, nor golang.org/x/sys), so a coder started as the helper exits
// before the rest of coder initialises. Any binary that links this
// package (coder, a test binary) acts as the helper. Check what still runs
// first with
//
//	GODEBUG=inittrace=1 coder __sandbox-exec mode=contain -- true
//
// Running in init also means running on the main OS thread, where the
// runtime keeps the main goroutine during initialisation: the helper
// restricts that thread and starts the command from it (ns_linux.go says
// why that is enough).
package helper

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// Arg is the hidden first argument that turns the coder binary into the
// sandbox helper: coder __sandbox-exec KEY=VALUE... -- PROGRAM ARGS...
const Arg = "__sandbox-exec"

// Failed is the helper's exit code when it cannot set the sandbox up; its
// stderr then starts with Prefix.
const (
	Failed = 125
	Prefix = "coder sandbox: "
)

// StopGrace is how long a stopped sandbox's processes get between SIGTERM
// and SIGKILL.
const StopGrace = time.Second

// ProbeOK is what a probe helper prints once everything is set up.
const ProbeOK = "coder-sandbox-probe-ok"

func init() {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	// Already locked during init; locked again so that nothing this
	// package calls can move the restricted goroutine off the thread.
	runtime.LockOSThread()
	os.Exit(run(os.Args[2:]))
}

func run(args []string) int {
	s, argv, err := Parse(args)
	if err != nil {
		return fail("", err)
	}
	if err := keepOnlyStdio(); err != nil {
		return fail("descriptors", err)
	}
	switch s.Mode {
	case ModeNS:
		return runNamespaced(s, argv)
	case ModeContain:
		return runContained(s, argv)
	default:
		return restrictAndExec(s, argv)
	}
}

// fail reports a set-up step that failed and returns Failed.
func fail(step string, err error) int {
	msg := Prefix
	if step != "" {
		msg += step + ": "
	}
	_, _ = os.Stderr.WriteString(msg + err.Error() + "\n")
	return Failed
}

// ExitCode is a finished process's exit code, 128+N when signal N ended
// it, -1 when unknown.
func ExitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
