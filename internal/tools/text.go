package tools

import (
	"strings"
	"unicode/utf8"
)

// validUTF8 replaces invalid UTF-8 sequences with U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// cutRunes shortens s to at most n characters; cut reports whether it did.
func cutRunes(s string, n int) (out string, cut bool) {
	if len(s) <= n {
		return s, false
	}
	i, count := 0, 0
	for i < len(s) && count < n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	if i >= len(s) {
		return s, false
	}
	return s[:i], true
}

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
	s, cut := cutRunes(s, n)
	if cut || more {
		s += "…"
	}
	return s
}
