package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// promptView draws the input area in place: an optional info line (the dim
// context line) and the input line, which may wrap over several rows. Only
// these rows are ever redrawn — never the screen — so the scrollback above
// is untouched and nothing flickers. Rows are overwritten and erased to
// their end (EL); erase-below (ED) is never used, because a terminal may
// treat it at the top-left cell as a screen clear and push the old prompt
// into the scrollback.
type promptView struct {
	out io.Writer
	// drawn: the area is on screen; row is the cursor's row within the input
	// line, rows how many rows the input line took, info whether an info
	// line sits above it.
	drawn bool
	row   int
	rows  int
	info  bool
}

// draw redraws the area. prefix is the styled prompt, plainPrefix its
// visible text (for widths); cursor is a rune offset into text.
func (p *promptView) draw(info, prefix, plainPrefix, text string, cursor, cols int) {
	var b strings.Builder
	if p.drawn {
		up := p.row
		if p.info {
			up++
		}
		if up > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", up)
		}
	}
	b.WriteString("\r")
	if info != "" {
		b.WriteString(info + "\x1b[K\n")
	}
	b.WriteString(prefix + text + "\x1b[K")
	w := ansi.StringWidth(plainPrefix + text)
	if w > 0 && w%cols == 0 {
		b.WriteString("\n\x1b[K") // leave the terminal's pending-wrap state
	}
	endRow := w / cols
	// Blank the rows a longer previous input left below.
	extra := 0
	if p.drawn {
		extra = p.rows - (endRow + 1)
	}
	for range extra {
		b.WriteString("\n\x1b[2K")
	}
	cw := ansi.StringWidth(plainPrefix + string([]rune(text)[:cursor]))
	row, col := cw/cols, cw%cols
	if up := endRow + max(extra, 0) - row; up > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", up)
	}
	b.WriteString("\r")
	if col > 0 {
		fmt.Fprintf(&b, "\x1b[%dC", col)
	}
	_, _ = io.WriteString(p.out, b.String())
	p.drawn, p.row, p.rows, p.info = true, row, endRow+1, info != ""
}

// finish moves below the area and leaves it in the scrollback as it is.
func (p *promptView) finish(plainPrefix, text string, cols int) {
	if !p.drawn {
		return
	}
	w := ansi.StringWidth(plainPrefix + text)
	if down := w/cols - p.row; down > 0 {
		fmt.Fprintf(p.out, "\x1b[%dB", down)
	}
	if w == 0 || w%cols != 0 {
		_, _ = io.WriteString(p.out, "\n")
	}
	p.drawn = false
}
