package repl

import (
	"strconv"
	"strings"
	"unicode"
)

// editor is the input line: text with a cursor (it may hold newlines,
// typed with Ctrl+J or \ then Enter), an optional multi-line paste, and
// this process's submitted-input history. It knows nothing about
// terminals, so every key rule is unit-tested.
type editor struct {
	buf    []rune
	cursor int
	// paste holds a multi-line paste, or a multi-line entry recalled from
	// history; the line then shows [copy N lines] and Enter sends it.
	paste string

	history []string
	// hist is the position while walking history; len(history) = not walking.
	hist int
}

// text is what Enter would send.
func (e *editor) text() string {
	if e.paste != "" {
		return e.paste
	}
	return string(e.buf)
}

func (e *editor) empty() bool { return len(e.buf) == 0 && e.paste == "" }

// display is the input as shown and the cursor's rune offset in it.
func (e *editor) display() ([]rune, int) {
	if e.paste != "" {
		s := []rune(copyLabel(e.paste))
		return s, len(s)
	}
	return e.buf, e.cursor
}

// copyLabel is how a multi-line text shows on one line.
func copyLabel(s string) string {
	return "[copy " + strconv.Itoa(strings.Count(s, "\n")+1) + " lines]"
}

func (e *editor) reset() {
	e.buf, e.cursor, e.paste = e.buf[:0], 0, ""
	e.hist = len(e.history)
}

// submit returns the input and records it in history.
func (e *editor) submit() string {
	t := e.text()
	if strings.TrimSpace(t) != "" {
		e.history = append(e.history, t)
	}
	e.reset()
	return t
}

// set replaces the input; several lines become a pending paste.
func (e *editor) set(s string) {
	e.paste, e.buf, e.cursor = "", e.buf[:0], 0
	if strings.Contains(s, "\n") {
		e.paste = s
		return
	}
	e.buf = []rune(s)
	e.cursor = len(e.buf)
}

// insert types s at the cursor. Control characters other than tab and
// newline are dropped: they would move the terminal's cursor.
func (e *editor) insert(s string) {
	if e.paste != "" {
		return // a pending paste is sent or cleared, not edited
	}
	r := []rune(strings.Map(func(r rune) rune {
		if (r < ' ' && r != '\t' && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, s))
	e.buf = append(e.buf[:e.cursor], append(r, e.buf[e.cursor:]...)...)
	e.cursor += len(r)
}

// pasted handles a bracketed paste: several lines become a pending paste,
// one line is inserted like typing.
func (e *editor) pasted(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	s = strings.TrimRight(s, "\n")
	if !strings.Contains(s, "\n") {
		e.insert(s)
		return
	}
	if len(e.buf) > 0 {
		s = string(e.buf) + s
	}
	e.buf, e.cursor, e.paste = e.buf[:0], 0, s
}

// backslashBeforeCursor: Enter after a backslash at the end of the input
// inserts a newline instead of sending.
func (e *editor) backslashBeforeCursor() bool {
	return e.paste == "" && e.cursor == len(e.buf) && e.cursor > 0 && e.buf[e.cursor-1] == '\\'
}

func (e *editor) backspace() {
	if e.paste != "" {
		e.paste = ""
		return
	}
	if e.cursor > 0 {
		e.buf = append(e.buf[:e.cursor-1], e.buf[e.cursor:]...)
		e.cursor--
	}
}

func (e *editor) del() {
	if e.cursor < len(e.buf) {
		e.buf = append(e.buf[:e.cursor], e.buf[e.cursor+1:]...)
	}
}

func (e *editor) left() {
	if e.cursor > 0 {
		e.cursor--
	}
}

func (e *editor) right() {
	if e.cursor < len(e.buf) {
		e.cursor++
	}
}

// home and end move within the current line of a multi-line input.
func (e *editor) home() {
	for e.cursor > 0 && e.buf[e.cursor-1] != '\n' {
		e.cursor--
	}
}

func (e *editor) end() {
	for e.cursor < len(e.buf) && e.buf[e.cursor] != '\n' {
		e.cursor++
	}
}

func (e *editor) wordLeft() {
	for e.cursor > 0 && unicode.IsSpace(e.buf[e.cursor-1]) {
		e.cursor--
	}
	for e.cursor > 0 && !unicode.IsSpace(e.buf[e.cursor-1]) {
		e.cursor--
	}
}

func (e *editor) wordRight() {
	for e.cursor < len(e.buf) && unicode.IsSpace(e.buf[e.cursor]) {
		e.cursor++
	}
	for e.cursor < len(e.buf) && !unicode.IsSpace(e.buf[e.cursor]) {
		e.cursor++
	}
}

// deleteWordLeft is Ctrl+W.
func (e *editor) deleteWordLeft() {
	end := e.cursor
	e.wordLeft()
	e.buf = append(e.buf[:e.cursor], e.buf[end:]...)
}

func (e *editor) killToEnd()   { e.buf = e.buf[:e.cursor] }
func (e *editor) killToStart() { e.buf, e.cursor = e.buf[e.cursor:], 0 }

// up walks back through history and stops at the oldest entry; an entry
// of several lines shows as [copy N lines], like a paste.
func (e *editor) up() {
	if len(e.history) == 0 {
		return
	}
	if e.hist > 0 {
		e.hist--
	}
	e.set(e.history[e.hist])
}

// down walks forward; past the newest entry it returns to an empty line
// (what was being typed is not kept).
func (e *editor) down() {
	if e.hist >= len(e.history) {
		return
	}
	e.hist++
	if e.hist == len(e.history) {
		e.set("")
		return
	}
	e.set(e.history[e.hist])
}

// word is the word the cursor ends (for completion): its start and text.
func (e *editor) word() (start int, w string) {
	start = e.cursor
	for start > 0 && !unicode.IsSpace(e.buf[start-1]) {
		start--
	}
	return start, string(e.buf[start:e.cursor])
}

// replaceWord replaces the text between start and the cursor.
func (e *editor) replaceWord(start int, with string) {
	rest := append([]rune(nil), e.buf[e.cursor:]...)
	e.buf = append(append(e.buf[:start], []rune(with)...), rest...)
	e.cursor = start + len([]rune(with))
}
