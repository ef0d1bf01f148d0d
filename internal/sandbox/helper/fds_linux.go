package helper

import (
	"os"
	"strconv"
	"syscall"
)

// keepOnlyStdio marks every descriptor above stderr close-on-exec, so the
// command gets its three standard streams and nothing else coder was
// started with: a directory opened outside the new mount namespace
// resolves paths in the host's mounts (past the tmpfs over a denied
// directory), a socket reaches whatever listens on it. Go opens its own
// descriptors close-on-exec, but not what it inherited.
func keepOnlyStdio() error {
	const sysCloseRange, closeRangeCloexec = 436, 1 << 2 // Linux 5.11+
	if _, _, e := syscall.RawSyscall(sysCloseRange, 3, ^uintptr(0), closeRangeCloexec); e == 0 {
		return nil
	}
	return cloexecListed()
}

// cloexecListed is keepOnlyStdio on a kernel without close_range's
// CLOSE_RANGE_CLOEXEC: every descriptor /proc/self/fd lists above stderr.
func cloexecListed() error {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}
