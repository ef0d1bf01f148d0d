package helper

import (
	"os"
	"strconv"
	"syscall"
)

// privateTmp puts an empty tmpfs on /tmp (inside the sandbox's mount
// namespace only) and binds back, each at its own path, what the command
// needs from the host's /tmp: keep, canonical paths below /tmp. Everything
// else there — tmux's, screen's, X11's, editors' and databases' sockets
// among it — is out of reach. remountAll then makes the tmpfs read-only
// like every mount not under a writable bind.
func privateTmp(keep []string) error {
	type held struct {
		path string
		fd   int
		dir  bool
	}
	var hs []held
	defer func() {
		for _, h := range hs {
			syscall.Close(h.fd)
		}
	}()
	// Held before the tmpfs hides them, to bind them back.
	for _, k := range keep {
		fd, err := syscall.Open(k, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			continue // gone: nothing to bind back
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			syscall.Close(fd)
			continue
		}
		hs = append(hs, held{k, fd, st.Mode&syscall.S_IFMT == syscall.S_IFDIR})
	}
	if err := syscall.Mount("tmpfs", "/tmp", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=0755,size=64k"); err != nil {
		return err
	}
	for _, h := range hs {
		if err := os.MkdirAll(parentDir(h.path), 0o755); err != nil {
			return err
		}
		var err error
		if h.dir {
			err = os.Mkdir(h.path, 0o755)
		} else {
			err = createEmpty(h.path, 0o644)
		}
		if err != nil {
			return err
		}
		if err := syscall.Mount("/proc/self/fd/"+strconv.Itoa(h.fd), h.path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			return wrap("bind "+h.path+" back", err)
		}
	}
	return nil
}
