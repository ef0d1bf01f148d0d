package helper

import "syscall"

// The helper reads and creates its few files by system calls, not package
// os: an *os.File registers with the runtime's network poller, whose
// start (an epoll instance, an eventfd, and a poll in every scheduling
// round after) the helper otherwise never needs.

// readFile is os.ReadFile by system calls.
func readFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &pathError{"open", path, err}
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
			return nil, &pathError{"read", path, err}
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
		return &pathError{"open", path, err}
	}
	return syscall.Close(fd)
}

// pathError is os.PathError's message without importing its package's
// file machinery: "op path: err".
type pathError struct {
	op, path string
	err      error
}

func (e *pathError) Error() string { return e.op + " " + e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }
