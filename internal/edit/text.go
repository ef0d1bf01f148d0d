package edit

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Small text helpers the engine's messages need. validUTF8, cutRunes and
// plural have twins in tools (text.go), which keeps its own for its output.

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

// plural is "1 line", "2 lines", "3 matches", "4 entries".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	switch {
	case strings.HasSuffix(word, "y"):
		word = word[:len(word)-1] + "ie"
	case strings.HasSuffix(word, "ch"), strings.HasSuffix(word, "s"), strings.HasSuffix(word, "x"):
		word += "e"
	}
	return fmt.Sprintf("%d %ss", n, word)
}
