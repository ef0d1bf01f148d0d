package screen

import (
	"io"

	"github.com/charmbracelet/x/ansi"
)

// Synchronized output (DEC private mode 2026): the terminal holds its
// screen from the start mark to the end mark.
const (
	syncStart = ansi.SetModeSynchronizedOutput
	syncEnd   = ansi.ResetModeSynchronizedOutput
	// syncQuery asks whether the terminal has mode 2026 (DECRQM); it
	// answers with a mode report (DECRPM), to SetSync.
	syncQuery = ansi.RequestModeSynchronizedOutput
)

// flush writes what the call gathered.
func (s *Screen) flush() {
	if s.buf.Len() == 0 {
		return
	}
	out := s.buf.String()
	s.buf.Reset()
	if s.sync {
		out = syncStart + out + syncEnd
	}
	_, _ = io.WriteString(s.out, out)
}

// SetSync turns synchronized output on or off: on once the terminal said
// it knows mode 2026.
func (s *Screen) SetSync(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync = on && !s.closed
}
