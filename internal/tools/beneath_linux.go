package tools

import (
	"errors"

	"golang.org/x/sys/unix"
)

var errNoOpenat2 = errors.New("openat2 is not available")

// openDirFd opens dir for openat2; -1 when it cannot.
func openDirFd(dir string) int {
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// openBeneath opens rel below dirfd in one openat2 call that refuses to
// resolve outside it (RESOLVE_BENEATH); symlinks that stay inside are
// followed, magic links (/proc) are not.
func openBeneath(dirfd int, rel string) (int, error) {
	if dirfd < 0 {
		return -1, errNoOpenat2
	}
	how := &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(dirfd, rel, how)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			continue
		case err == unix.ENOSYS:
			return -1, errNoOpenat2
		}
		return fd, err
	}
}
