//go:build !amd64 && !386

package helper

import "syscall"

const (
	sysSetns  = syscall.SYS_SETNS
	sysGetcpu = syscall.SYS_GETCPU
)
