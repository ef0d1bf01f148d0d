package edit

import (
	"strings"
	"unicode/utf8"
)

// Small text helpers the engine's messages need. validUTF8 and cutRunes
// have twins in tools (text.go), which keeps its own for its output.

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

// lineOf is the 1-based line of byte offset off in s.
func lineOf(s string, off int) int {
	return strings.Count(s[:off], "\n") + 1
}
