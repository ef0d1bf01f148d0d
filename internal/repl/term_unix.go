//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package repl

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminal puts the input side of a TTY in raw mode. Output processing
// (OPOST) stays on, so "\n" still returns the carriage and everything the
// renderer writes lands in the scrollback as normal text.
type terminal struct {
	in, out *os.File
	saved   *unix.Termios
}

func enterRaw(in, out *os.File) (*terminal, error) {
	t := &terminal{in: in, out: out}
	if err := t.raw(); err != nil {
		return nil, err
	}
	return t, nil
}

// raw saves the terminal's modes and puts it in raw mode (again, after a
// suspend: the shell may have changed them meanwhile).
func (t *terminal) raw() error {
	fd := int(t.in.Fd())
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return err
	}
	raw := *old
	raw.Iflag &^= unix.ICRNL | unix.INLCR | unix.IGNCR | unix.IXON | unix.BRKINT | unix.INPCK | unix.ISTRIP
	raw.Lflag &^= unix.ECHO | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &raw); err != nil {
		return err
	}
	t.saved = old
	// Bracketed paste on; the kitty keyboard protocol's first level where
	// the terminal has it (Shift+Enter is told apart from Enter, Esc from
	// the start of a sequence); focus reporting, for notifications
	// (notify.go). Terminals without one ignore its request.
	_, _ = t.out.WriteString("\x1b[?2004h\x1b[>1u\x1b[?1004h")
	return nil
}

func (t *terminal) restore() {
	_, _ = t.out.WriteString("\x1b[?1004l\x1b[<u\x1b[?2004l")
	_ = unix.IoctlSetTermios(int(t.in.Fd()), ioctlSetTermios, t.saved)
}

// size is the terminal's columns and rows, 80×24 when unknown.
func (t *terminal) size() (cols, rows int) {
	ws, err := unix.IoctlGetWinsize(int(t.out.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 {
		return 80, 24
	}
	return int(ws.Col), max(int(ws.Row), 1)
}

func (t *terminal) cols() int {
	c, _ := t.size()
	return c
}
