package helper

import (
	"os"
	"strconv"
	"syscall"
)

// sandboxDevices are the only device nodes a command sees: the host's
// /dev would also offer disks and consoles, writable by their owner (uid 0
// inside is root's uid outside, and special files ignore read-only mounts).
var sandboxDevices = []string{"null", "zero", "full", "random", "urandom", "tty"}

// minimalDev replaces /dev with a small read-only tmpfs holding those
// devices (bound from the host's /dev), the usual symlinks, a private
// devpts instance for pseudo-terminals and a private /dev/shm, as
// bubblewrap's --dev does.
func minimalDev() error {
	// Hold the devices before the tmpfs hides them, to bind them back.
	fds := map[string]int{}
	for _, name := range sandboxDevices {
		fd, err := syscall.Open("/dev/"+name, oPath|syscall.O_CLOEXEC, 0)
		if err == nil {
			fds[name] = fd
			defer syscall.Close(fd)
		}
	}
	if err := syscall.Mount("tmpfs", "/dev", "tmpfs", syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return wrap("tmpfs on /dev", err)
	}
	for _, name := range sandboxDevices {
		fd, ok := fds[name]
		if !ok {
			continue
		}
		target := "/dev/" + name
		if err := createEmpty(target, 0o666); err != nil {
			return err
		}
		if err := syscall.Mount("/proc/self/fd/"+strconv.Itoa(fd), target, "", syscall.MS_BIND, ""); err != nil {
			return wrap("bind "+target, err)
		}
	}
	for link, to := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0",
		"stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2", "ptmx": "pts/ptmx"} {
		if err := os.Symlink(to, "/dev/"+link); err != nil {
			return err
		}
	}
	for _, d := range []string{"/dev/pts", "/dev/shm"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return err
		}
	}
	// Pseudo-terminals of its own (not the host's, where the user's
	// terminals live); a system without devpts instances just has none.
	_ = syscall.Mount("devpts", "/dev/pts", "devpts", syscall.MS_NOSUID|syscall.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
	if err := syscall.Mount("tmpfs", "/dev/shm", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777"); err != nil {
		return wrap("private /dev/shm", err)
	}
	if err := syscall.Mount("", "/dev", "", syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NOEXEC, "mode=0755,size=64k"); err != nil {
		return wrap("read-only /dev", err)
	}
	return nil
}
