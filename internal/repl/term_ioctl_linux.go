package repl

import "golang.org/x/sys/unix"

// The termios requests differ by system (the BSDs and macOS name them
// TIOCGETA and TIOCSETA).
const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)
