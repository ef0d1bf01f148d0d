// Package regfile reads the files coder reads at start-up — configuration,
// rules, MCP lists, custom commands, skills — only when they are regular
// files of a bounded size. A FIFO in their place would block every start
// (opened without O_NONBLOCK, open waits for a writer), and a link to
// /dev/zero would grow without end; both are refused at once, readably.
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge is wrapped by Read for a file over its cap.
var ErrTooLarge = errors.New("file too large")

// Open opens path for reading when it is a regular file (symlinks
// followed), without blocking on whatever else it might be. A missing file
// is an error wrapping fs.ErrNotExist.
func Open(path string) (*os.File, fs.FileInfo, error) {
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	// writer; regular files ignore the flag.
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file (%s)", path, describe(fi.Mode()))
	}
	return f, fi, nil
}

// Read returns the content of path, which must be a regular file (symlinks
// followed) of at most max bytes. A missing file is an error wrapping
// fs.ErrNotExist, as os.ReadFile's.
func Read(path string, max int64) ([]byte, error) {
	f, fi, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w (%d bytes, the limit is %d)", path, ErrTooLarge, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w (it grew past %d bytes while read)", path, ErrTooLarge, max)
	}
	return data, nil
}

func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}
