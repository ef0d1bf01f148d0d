package style

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/displaywidth"
)

// Every width the REPL computes comes from here: the terminal's cells, with
// wide (CJK) characters counting two, zero-width ones nothing, escape
// sequences nothing, and tabs expanded to spaces first (a terminal moves
// over a tab without writing cells, so no width of one can be right).

// TabStop is the column multiple a tab advances to.
const TabStop = 4

// RuneWidth is the cells one rune takes.
func RuneWidth(r rune) int {
	if r < ' ' || r == 0x7f {
		return 0
	}
	return displaywidth.Rune(r)
}

// Width is the cells s takes; s may carry SGR escape sequences but no tabs
// or newlines.
func Width(s string) int { return ansi.StringWidth(s) }

// Truncate cuts s (styled or not) to w cells, ending in "…" when cut.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if Width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// ExpandTabs replaces tabs with spaces up to the next tab stop.
func ExpandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := TabStop - col%TabStop
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col += RuneWidth(r)
		}
	}
	return b.String()
}
