package tools

import (
	"strings"

	"github.com/coder-agent/coder/internal/textcut"
)

// countLines counts lines the way an editor does: a final line without a
// newline counts, an empty text has none.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// firstLine is s's first line, shortened to n characters, for summaries.
func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	more := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, more = s[:i], true
	}
	s, cut := textcut.Runes(s, n)
	if cut || more {
		s += "…"
	}
	return s
}
