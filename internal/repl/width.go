package repl

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/displaywidth"

	pluralpkg "github.com/coder-agent/coder/internal/plural"
)

// Every width the REPL computes comes from here: the terminal's cells, with
// wide (CJK) characters counting two, zero-width ones nothing, escape
// sequences nothing, and tabs expanded to spaces first (a terminal moves
// over a tab without writing cells, so no width of one can be right).

// tabStop is the column multiple a tab advances to.
const tabStop = 4

// runeWidth is the cells one rune takes.
func runeWidth(r rune) int {
	if r < ' ' || r == 0x7f {
		return 0
	}
	return displaywidth.Rune(r)
}

// width is the cells s takes; s may carry SGR escape sequences but no tabs
// or newlines.
func width(s string) int { return ansi.StringWidth(s) }

// truncate cuts s (styled or not) to w cells, ending in "…" when cut.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// expandTabs replaces tabs with spaces up to the next tab stop.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := tabStop - col%tabStop
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col += runeWidth(r)
		}
	}
	return b.String()
}

// plural is "1 line", "2 lines": the shared rule, under the name the
// REPL's files call it by.
var plural = pluralpkg.Count
