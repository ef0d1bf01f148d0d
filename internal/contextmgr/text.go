package contextmgr

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// cutAtLine returns at most max bytes of b, ending at a line end when there
// is one in the second half (a cut line reads as garbage), and never in the
// middle of a UTF-8 sequence.
func cutAtLine(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	b = b[:max]
	if i := bytes.LastIndexByte(b, '\n'); i >= max/2 {
		return b[:i+1]
	}
	return trimPartialRune(b)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			return b
		}
	}
	return b
}

// truncateRunes cuts s to at most n runes, marking the cut with "…".
func truncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return strings.TrimSpace(s[:pos]) + "…"
		}
		i++
	}
	return s
}

// truncateMiddle keeps the head and the tail of s within about max bytes:
// for tool output the end (the error, the summary line) matters as much as
// the beginning.
func truncateMiddle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head := string(trimPartialRune([]byte(s[:max*2/3])))
	tail := s[len(s)-max/3:]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s\n[… %d bytes cut …]\n%s", head, len(s)-len(head)-len(tail), tail)
}
