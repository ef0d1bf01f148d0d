package screen

import (
	"github.com/coder-agent/coder/internal/repl/style"
)

// Where the live region stands on the screen, and what a narrower
// terminal's re-wrap does to it.

// reflowed accounts for a change of width since the region was drawn. A
// reflowing terminal (tmux, VTE, kitty, iTerm2) has re-wrapped the drawn
// rows at the new width: a row of w cells now takes ⌈w/cols⌉ rows, and the
// cursor moved with its cell. The region's top is found from that, and all
// those rows are redrawn.
func (s *Screen) reflowed(cols int) {
	up, total := 0, 0
	for i, w := range s.widths {
		n := max(1, (w+cols-1)/cols)
		if i < s.curRow {
			up += n
		}
		total += n
	}
	// The cursor's cell moved to the wrapped row it now falls on; a cursor
	// just past a row's end at a multiple of the width has no cell there
	// and stays at the end of the row's last wrapped row.
	sub := s.curCol / cols
	if s.curRow < len(s.widths) {
		sub = min(sub, max(1, (s.widths[s.curRow]+cols-1)/cols)-1)
	}
	up += sub
	s.curRow, s.curCol, s.drawn = up, 0, total
	s.cols = cols
}

// askRow asks the terminal where the cursor is (DSR); the answer comes
// as a key event, to CursorAt.
func (s *Screen) askRow() {
	s.buf.WriteString("\x1b[6n")
	s.query = 0
}

// CursorAt takes the terminal's answer to askRow: the cursor's row on the
// screen. An answer that output written since may have made untrue is
// asked again.
func (s *Screen) CursorAt(row int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	switch {
	case s.query < 0 || s.closed:
	case s.query > 0:
		s.askRow()
	default:
		s.row, s.rowKnown, s.query = row, true, -1
		s.redraw("") // room for a reflow, if there is too little
	}
}

// reflowFloor is the narrowest terminal a resize is drawn right at.
const reflowFloor = 20

// reflowRoom is how many blank rows to leave above the region so that a
// terminal made narrower keeps all of it on screen. A reflowing terminal
// (tmux) keeps the cursor's row and pushes the rows the re-wrap adds above
// it into its scrollback, where no program can erase them: with the
// region near the top of the screen (at start, after a clear) those would
// be copies of the prompt. So the cursor's row must be at least the rows
// above it once re-wrapped at reflowFloor columns. Nothing is added where
// the row is not known, or the region is lower than that anyway.
func (s *Screen) reflowRoom(rows []string, curRow, curCol, used, height int) int {
	if !s.rowKnown || len(rows) == 0 {
		return 0
	}
	floor := min(reflowFloor, s.cols)
	need := curCol / floor
	for _, r := range rows[:curRow] {
		need += max(1, (style.Width(r)+floor-1)/floor)
	}
	at := s.row - s.curRow + used + curRow // where the cursor will be
	if at >= need || at+len(rows)-curRow > height-1 {
		return 0 // low enough, or at the bottom, where output scrolls
	}
	return min(need-at, height-1-(at+len(rows)-1-curRow))
}
