package repl

import (
	"strings"

	"github.com/coder-agent/coder/internal/repl/style"
)

// inputLayout is the input area laid out for a terminal of cols cells: the
// rows to draw and where the cursor is. The REPL wraps the input itself
// instead of letting the terminal do it, so it always knows how many rows
// are on screen: every row ends in a newline of its own, and the cursor is
// never left in a terminal's "pending wrap" state at the right margin.
type inputLayout struct {
	rows           []string
	curRow, curCol int
}

// layoutInput lays out prefix (drawn with color) followed by text, wrapped
// at cols: tabs expand to the next tab stop, newlines start a row, a wide
// character that does not fit starts the next row. cursor is a rune offset
// into text.
func layoutInput(prefix string, color func(string) string, text []rune, cursor, cols int) inputLayout {
	cols = max(cols, 2)
	var (
		out       inputLayout
		pre, body strings.Builder
		col       int
	)
	flush := func() {
		out.rows = append(out.rows, color(pre.String())+body.String())
		pre.Reset()
		body.Reset()
		col = 0
	}
	for _, r := range prefix {
		w := style.RuneWidth(r)
		if col+w > cols {
			flush()
		}
		pre.WriteRune(r)
		col += w
	}
	mark := func() { out.curRow, out.curCol = len(out.rows), col }
	for i, r := range text {
		w := style.RuneWidth(r)
		if r == '\t' {
			w = style.TabStop - col%style.TabStop
		}
		if r != '\n' && (col >= cols || col+w > cols) {
			if r == '\t' && col < cols {
				w = cols - col // a tab at the margin fills the row
			} else {
				flush()
				if r == '\t' {
					w = style.TabStop
				}
			}
		}
		if i == cursor {
			mark()
		}
		switch r {
		case '\n':
			flush()
		case '\t':
			body.WriteString(strings.Repeat(" ", w))
			col += w
		default:
			body.WriteRune(r)
			col += w
		}
	}
	if cursor >= len(text) {
		if col >= cols {
			flush()
		}
		mark()
	}
	flush()
	return out
}
