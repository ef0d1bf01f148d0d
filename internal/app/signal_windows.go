//go:build windows

package app

import "syscall"

// signalNum is the number of the signal named like "SIGTERM", 0 if none:
// the POSIX numbers an editor's terminal on Windows may report.
func signalNum(name string) int {
	return int(map[string]syscall.Signal{"SIGHUP": syscall.SIGHUP, "SIGINT": syscall.SIGINT,
		"SIGQUIT": syscall.SIGQUIT, "SIGABRT": syscall.SIGABRT, "SIGKILL": syscall.SIGKILL,
		"SIGSEGV": syscall.SIGSEGV, "SIGPIPE": syscall.SIGPIPE, "SIGALRM": syscall.SIGALRM,
		"SIGTERM": syscall.SIGTERM}[name])
}
