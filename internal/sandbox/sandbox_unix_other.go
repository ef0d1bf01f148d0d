//go:build unix && !linux

package sandbox

import "syscall"

// sysProcAttr: the helper leads a process group of its own.
func sysProcAttr(spec) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
