package helper

import (
	"os"
	"syscall"
)

// The helper reads and creates its few files by system calls, not
// *os.File: an *os.File registers with the runtime's network poller, whose
// start (an epoll instance, an eventfd, and a poll in every scheduling
// round after) the helper otherwise never needs.

// readFile is os.ReadFile by system calls.
func readFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	b := make([]byte, 0, 4096)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// createEmpty makes an empty file at path, as os.WriteFile(path, nil, perm)
// does where there is none.
func createEmpty(path string, perm uint32) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC|syscall.O_CLOEXEC, perm)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	return syscall.Close(fd)
}
