//go:build !amd64 && !386

package helper

import "syscall"

// System call numbers: setns(2)'s and getcpu(2)'s.
const (
	sysSetns  = syscall.SYS_SETNS
	sysGetcpu = syscall.SYS_GETCPU
)
