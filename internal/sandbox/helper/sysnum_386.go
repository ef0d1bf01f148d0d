//go:build linux

package helper

import "syscall"

// System call numbers: setns(2)'s, which package syscall leaves out here,
// and getcpu(2)'s.
const (
	sysSetns  = 346
	sysGetcpu = syscall.SYS_GETCPU
)
