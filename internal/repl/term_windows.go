//go:build windows

package repl

import (
	"os"

	xterm "github.com/charmbracelet/x/term"
	"golang.org/x/sys/windows"
)

// terminal puts the console's input in raw mode with virtual-terminal
// input (keys arrive as the same escape sequences as on Unix) and its
// output in virtual-terminal mode, keeping "\n" a new line as on Unix.
type terminal struct {
	in, out  *os.File
	saved    *xterm.State
	savedOut uint32
}

func enterRaw(in, out *os.File) (*terminal, error) {
	t := &terminal{in: in, out: out}
	if err := t.raw(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *terminal) raw() error {
	old, err := xterm.MakeRaw(t.in.Fd())
	if err != nil {
		return err
	}
	h := windows.Handle(t.out.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		_ = xterm.Restore(t.in.Fd(), old)
		return err
	}
	if err := windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING|windows.ENABLE_PROCESSED_OUTPUT); err != nil {
		_ = xterm.Restore(t.in.Fd(), old)
		return err
	}
	t.saved, t.savedOut = old, mode
	_, _ = t.out.WriteString("\x1b[?2004h\x1b[>1u")
	return nil
}

func (t *terminal) restore() {
	_, _ = t.out.WriteString("\x1b[<u\x1b[?2004l")
	_ = xterm.Restore(t.in.Fd(), t.saved)
	_ = windows.SetConsoleMode(windows.Handle(t.out.Fd()), t.savedOut)
}

// size is the console's columns and rows, 80×24 when unknown.
func (t *terminal) size() (cols, rows int) {
	c, r, err := xterm.GetSize(t.out.Fd())
	if err != nil || c <= 0 {
		return 80, 24
	}
	return c, max(r, 1)
}

func (t *terminal) cols() int {
	c, _ := t.size()
	return c
}
