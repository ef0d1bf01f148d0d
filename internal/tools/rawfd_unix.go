//go:build unix

package tools

import (
	"os"
	"syscall"
)

// rawFD is an open file as grep's fast path holds it: a descriptor, read
// with raw system calls (see readSmallFile).
type rawFD = int

const noFD rawFD = -1

func openFD(abs string) (rawFD, error) {
	for {
		fd, err := syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

func dupFD(f *os.File) (rawFD, error) { return syscall.Dup(int(f.Fd())) }

func closeFD(fd rawFD) { _ = syscall.Close(fd) }

func fdSize(fd rawFD) (int64, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return 0, err
	}
	return st.Size, nil
}

func readFD(fd rawFD, b []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, b)
		if err != syscall.EINTR {
			return n, err
		}
	}
}
