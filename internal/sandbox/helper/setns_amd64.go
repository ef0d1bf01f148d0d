//go:build linux

package helper

// Numbers package syscall leaves out here.
const (
	sysSetns  = 308
	sysGetcpu = 309
)
