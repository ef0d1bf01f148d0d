// Package termsafe makes text that coder did not write safe to show on a
// terminal: nothing the model, a command or a file name says can move the
// cursor, erase a line, retitle the window or hide what is being approved.
//
// The rule, in one place: every control character except newline and tab
// is shown as a hex escape, one form for all ("\x1b[2K" becomes the
// characters \x1b[2K, a lone carriage return \x0d, BEL \x07, DEL \x7f,
// a C1 control \u009b), so nothing hides in a friendlier name; a carriage
// return directly before a newline is dropped (CRLF line ends), invalid
// UTF-8 becomes U+FFFD, and everything else — printable Unicode included —
// is left as it is. Coder's own styling is added after this, never
// passed through it.
package termsafe

import (
	"strings"
	"unicode/utf8"
)

// Visible returns s with its control characters made visible (see the
// package comment). Clean text is returned unchanged, without copying.
func Visible(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// the CR of a CRLF: the newline is kept, the line stays whole
		case r < 0x80 && control(r): // C0 and DEL: \x1b, \x0d, \x7f
			b.WriteString(`\x`)
			b.WriteString(hex2(r))
		case control(r): // C1: \u009b
			b.WriteString(`\u00`)
			b.WriteString(hex2(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func hex2(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>4&0xf], digits[r&0xf]})
}

// control reports whether r is a control character a terminal may act on,
// other than newline and tab.
func control(r rune) bool {
	return (r < ' ' && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}

// clean reports whether s needs no change: ASCII without controls is the
// common case and is checked byte by byte.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return cleanUnicode(s[i:])
		}
		if (c < ' ' && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func cleanUnicode(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || control(r) {
			return false
		}
		i += n
	}
	return true
}
