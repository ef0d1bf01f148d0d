//go:build unix

package app

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// protocolStdout keeps the process's stdout for the protocol alone: it
// returns a duplicate of file descriptor 1 and points 1 at stderr, so a
// stray write (a library's print, a child that inherits it) lands in the
// log instead of corrupting the editor's stream.
func protocolStdout() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("keeping stdout for the protocol: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("keeping stdout for the protocol: %w", err)
	}
	return os.NewFile(uintptr(fd), "acp-stdout"), nil
}
