//go:build windows

package app

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// protocolStdout keeps the process's stdout for the protocol alone: it
// returns the stdout file and makes stderr the process's standard output,
// so a stray write (a library's print, a child that inherits it) lands in
// the log instead of corrupting the editor's stream.
func protocolStdout() (*os.File, error) {
	out := os.Stdout
	if err := windows.SetStdHandle(windows.STD_OUTPUT_HANDLE, windows.Handle(os.Stderr.Fd())); err != nil {
		return nil, fmt.Errorf("keeping stdout for the protocol: %w", err)
	}
	os.Stdout = os.Stderr
	return out, nil
}
