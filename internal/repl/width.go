package repl

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/displaywidth"
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

// sanitize makes text from outside (the model, a command's output) safe to
// print: escape sequences and control characters other than newline and
// tab are dropped, a carriage return keeps what follows it (progress
// bars), invalid UTF-8 becomes U+FFFD.
func sanitize(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\n' && c != '\t') || c == 0x7f || c >= utf8.RuneSelf {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	s = ansi.Strip(strings.ToValidUTF8(s, "\uFFFD"))
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if j := strings.LastIndexByte(strings.TrimRight(l, "\r"), '\r'); j >= 0 {
			l = l[j+1:]
		}
		lines[i] = strings.Map(func(r rune) rune {
			if (r < ' ' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				return -1
			}
			return r
		}, l)
	}
	return strings.Join(lines, "\n")
}

// plural is "1 line", "2 lines".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
