package edit

import (
	"strings"
	"unicode/utf8"
)

// normOpts says which drift a normalised view forgives. Line endings are
// always normalised in a view: CRLF and LF mean the same line break.
type normOpts struct {
	trailing bool // whitespace at the end of each line
	indent   bool // whitespace at the start of each line
	unicode  bool // typographic punctuation and odd spaces
}

// normView is a normalised copy of a text that remembers where each of its
// bytes came from, so a match found in the copy maps back to exact byte
// offsets of the original: the edit then replaces just that region.
type normView struct {
	text string
	// start and end give, for each byte of text, the original range of the
	// unit (one rune, or a CRLF pair) that produced it. Bytes of the same unit
	// share a range, which is how a match splitting a unit is recognised.
	start, end []int32
}

// unit is one rune of a line with its normalised spelling.
type unit struct {
	s, e int
	out  string
}

// buildView normalises s. withMap false skips the offset tables (for the
// model's old_string, which is only searched for).
func buildView(s string, o normOpts, withMap bool) normView {
	var b strings.Builder
	b.Grow(len(s))
	var v normView
	if withMap {
		v.start = make([]int32, 0, len(s))
		v.end = make([]int32, 0, len(s))
	}
	emit := func(out string, s, e int) {
		b.WriteString(out)
		if withMap {
			for range len(out) {
				v.start = append(v.start, int32(s))
				v.end = append(v.end, int32(e))
			}
		}
	}
	var units []unit
	for i := 0; i <= len(s); {
		nl := strings.IndexByte(s[i:], '\n')
		lineEnd := len(s)
		if nl >= 0 {
			lineEnd = i + nl
		}
		textEnd := lineEnd
		if nl >= 0 && textEnd > i && s[textEnd-1] == '\r' {
			textEnd--
		}
		units = lineUnits(units[:0], s, i, textEnd, o.unicode)
		lo, hi := 0, len(units)
		for o.indent && lo < hi && isBlankUnit(units[lo].out) {
			lo++
		}
		for o.trailing && hi > lo && isBlankUnit(units[hi-1].out) {
			hi--
		}
		for _, u := range units[lo:hi] {
			emit(u.out, u.s, u.e)
		}
		if nl < 0 {
			break
		}
		emit("\n", textEnd, lineEnd+1)
		i = lineEnd + 1
	}
	v.text = b.String()
	return v
}

// lineUnits splits s[from:to] into runes, mapping punctuation when asked.
// Invalid UTF-8 bytes pass through one by one, unchanged.
func lineUnits(dst []unit, s string, from, to int, mapPunct bool) []unit {
	for i := from; i < to; {
		r, size := utf8.DecodeRuneInString(s[i:to])
		out := s[i : i+size]
		if mapPunct && size > 1 {
			if p, ok := punctuation(r); ok {
				out = p
			}
		}
		dst = append(dst, unit{s: i, e: i + size, out: out})
		i += size
	}
	return dst
}

func isBlankUnit(out string) bool {
	return out == " " || out == "\t" || out == "\r" || out == "\f" || out == "\v"
}

// punctuation is the ASCII a model types for typographic characters a file
// holds (or the other way round: both sides are normalised).
func punctuation(r rune) (string, bool) {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032':
		return "'", true
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033':
		return `"`, true
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return "-", true
	case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007',
		'\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
		return " ", true
	case '\u2026':
		return "...", true
	}
	return "", false
}

// validStart reports whether a match may begin at byte ns of the view: not
// inside the expansion of one unit (the middle of an ellipsis).
func (v normView) validStart(ns int) bool {
	return ns == 0 || ns == len(v.text) || v.start[ns] != v.start[ns-1]
}

// validEnd is validStart for the end of a match.
func (v normView) validEnd(ne int) bool {
	return ne == 0 || ne == len(v.text) || v.start[ne] != v.start[ne-1]
}

func (v normView) atLineStart(ns int) bool { return ns == 0 || v.text[ns-1] == '\n' }

func (v normView) atLineEnd(ne int) bool { return ne == len(v.text) || v.text[ne] == '\n' }

// lineStartBefore is the offset of the start of the line holding off.
func lineStartBefore(s string, off int) int {
	return strings.LastIndexByte(s[:off], '\n') + 1
}

// lineTextEnd is the offset where the line holding off ends, before its
// line break (LF or CRLF).
func lineTextEnd(s string, off int) int {
	nl := strings.IndexByte(s[off:], '\n')
	if nl < 0 {
		return len(s)
	}
	end := off + nl
	if end > off && s[end-1] == '\r' {
		end--
	}
	return end
}

// normaliseEOL turns CRLF into LF.
func normaliseEOL(s string) string {
	if !strings.Contains(s, "\r\n") {
		return s
	}
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// toCRLF turns every bare LF of s into CRLF.
func toCRLF(s string) string {
	return strings.ReplaceAll(normaliseEOL(s), "\n", "\r\n")
}

// leadingWS is the indentation of line.
func leadingWS(line string) string {
	return line[:len(line)-len(strings.TrimLeft(line, " \t"))]
}

func isBlank(line string) bool { return strings.TrimSpace(line) == "" }
