//go:build linux

package helper

// System call numbers package syscall leaves out here: setns(2)'s and
// getcpu(2)'s.
const (
	sysSetns  = 308
	sysGetcpu = 309
)
