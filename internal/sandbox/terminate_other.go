//go:build unix && !linux

package sandbox

import "syscall"

// untilCatching: there are no PID namespaces here.
func untilCatching(int, syscall.Signal) {}
