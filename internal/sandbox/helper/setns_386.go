//go:build linux

package helper

import "syscall"

// setns(2)'s number, which package syscall leaves out here.
const (
	sysSetns  = 346
	sysGetcpu = syscall.SYS_GETCPU
)
