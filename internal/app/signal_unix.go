//go:build unix

package app

import "golang.org/x/sys/unix"

// signalNum is the number of the signal named like "SIGTERM", 0 if none.
func signalNum(name string) int { return int(unix.SignalNum(name)) }
