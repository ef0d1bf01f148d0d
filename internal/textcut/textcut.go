// Package textcut holds the one rule for shortening text that people and
// models read: valid UTF-8 first, then cut at a character, never inside one.
package textcut

import (
	"strings"
	"unicode/utf8"
)

// Valid replaces invalid UTF-8 sequences with U+FFFD.
func Valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Runes shortens s to at most n characters; cut reports whether it did.
func Runes(s string, n int) (out string, cut bool) {
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
