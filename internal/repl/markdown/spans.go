package markdown

import (
	"strings"

	"github.com/coder-agent/coder/internal/repl/style"
)

// attr is a set of text attributes, drawn as SGR codes when colour is on.
type attr uint16

const (
	attrBold attr = 1 << iota
	attrItalic
	attrUnderline
	attrStrike
	attrDim
	attrCode    // inline code: cyan
	attrKeyword // syntax: magenta
	attrString  // syntax: green
	attrNumber  // syntax: cyan
	attrRed
	attrGreen
	attrYellow
	attrBlue
)

var attrCodes = []struct {
	a    attr
	code string
}{
	{attrBold, "1"}, {attrDim, "2"}, {attrItalic, "3"}, {attrUnderline, "4"}, {attrStrike, "9"},
	{attrCode, "36"}, {attrKeyword, "35"}, {attrString, "32"}, {attrNumber, "36"},
	{attrRed, "31"}, {attrGreen, "32"}, {attrYellow, "33"}, {attrBlue, "34"},
}

// sgr is the escape sequence that turns a on.
func (a attr) sgr() string {
	var codes []string
	for _, c := range attrCodes {
		if a&c.a != 0 {
			codes = append(codes, c.code)
		}
	}
	if len(codes) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(codes, ";") + "m"
}

// span is a piece of text with one set of attributes; "\n" in text is a
// hard line break.
type span struct {
	text string
	a    attr
}

// paint draws spans as one string: each span opens and closes its own
// attributes, so a row never carries them into the next one.
func paint(st style.Style, spans []span) string {
	var b strings.Builder
	for _, sp := range merge(spans) {
		if sp.text == "" {
			continue
		}
		if code := sp.a.sgr(); st.Color && code != "" {
			b.WriteString(code + sp.text + style.Reset)
		} else {
			b.WriteString(sp.text)
		}
	}
	return b.String()
}

// merge joins neighbouring spans of the same attributes.
func merge(spans []span) []span {
	var out []span
	for _, sp := range spans {
		if n := len(out); n > 0 && out[n-1].a == sp.a {
			out[n-1].text += sp.text
			continue
		}
		out = append(out, sp)
	}
	return out
}

// spansWidth is the cells spans take.
func spansWidth(spans []span) int {
	w := 0
	for _, sp := range spans {
		w += style.Width(sp.text)
	}
	return w
}

// wrapSpans lays spans out in rows of at most cols cells, breaking at
// spaces (a word longer than a row is cut). The first row starts with
// first, the others with rest (e.g. a list marker and its hanging indent).
func wrapSpans(st style.Style, spans []span, cols int, first, rest []span) []string {
	var (
		rows  []string
		row   []span
		w     int
		lead  = first
		words = splitWords(spans)
	)
	start := func() {
		row = append([]span(nil), lead...)
		w = spansWidth(lead)
		lead = rest
	}
	flush := func() {
		rows = append(rows, strings.TrimRight(paint(st, row), " "))
		row = nil
	}
	start()
	fresh := true // nothing but the lead on this row yet
	for _, word := range words {
		if word == nil { // a hard break
			flush()
			start()
			fresh = true
			continue
		}
		ww := spansWidth(word)
		space := 0
		if !fresh {
			space = 1
		}
		if !fresh && w+space+ww > cols {
			flush()
			start()
			fresh, space = true, 0
		}
		if space == 1 {
			// The space takes the attributes its neighbours share, so an
			// underlined link or a bold heading is not broken at its spaces.
			a := attr(0)
			if prev := row[len(row)-1].a; prev == word[0].a {
				a = prev
			}
			row = append(row, span{text: " ", a: a})
			w++
		}
		for _, piece := range word { // a word longer than a row is cut
			for text := piece.text; text != ""; {
				room := cols - w
				if room <= 0 {
					flush()
					start()
					room = max(cols-w, 1)
				}
				head, tail := cutWidth(text, room)
				row = append(row, span{text: head, a: piece.a})
				w += style.Width(head)
				text = tail
			}
		}
		fresh = false
	}
	flush()
	return rows
}

// splitWords cuts spans into words (runs without spaces, possibly of
// several spans); nil marks a hard line break.
func splitWords(spans []span) [][]span {
	var (
		words [][]span
		cur   []span
	)
	end := func() {
		if len(cur) > 0 {
			words = append(words, cur)
			cur = nil
		}
	}
	for _, sp := range spans {
		var b strings.Builder
		for _, r := range sp.text {
			switch r {
			case ' ':
				if b.Len() > 0 {
					cur = append(cur, span{text: b.String(), a: sp.a})
					b.Reset()
				}
				end()
			case '\n':
				if b.Len() > 0 {
					cur = append(cur, span{text: b.String(), a: sp.a})
					b.Reset()
				}
				end()
				words = append(words, nil)
			default:
				b.WriteRune(r)
			}
		}
		if b.Len() > 0 {
			cur = append(cur, span{text: b.String(), a: sp.a})
		}
	}
	end()
	return words
}

// cutWidth splits s after at most w cells (at least one rune).
func cutWidth(s string, w int) (head, tail string) {
	used := 0
	for i, r := range s {
		rw := style.RuneWidth(r)
		if used+rw > w && i > 0 {
			return s[:i], s[i:]
		}
		used += rw
	}
	return s, ""
}
