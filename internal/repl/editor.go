package repl

import (
	"strconv"
	"strings"
	"unicode"
)

// editor is the input line: text with a cursor (it may hold newlines,
// typed with Ctrl+J or \ then Enter, and pastes of several lines, each
// one placeholder), and the history of submitted inputs. It knows nothing
// about terminals, so every key rule is unit-tested.
type editor struct {
	entry
	cursor int

	history []entry
	// hist is the position while walking history; len(history) = not walking.
	hist int
}

// entry is an input as edited: its runes, where a paste of several lines
// is one rune (pasteBase+i for pastes[i]) that shows as a placeholder,
// moves and deletes as one character, and is expanded when sent.
type entry struct {
	buf    []rune
	pastes []string
}

// pasteBase starts the runes that stand for pastes: Supplementary Private
// Use Area-B, which no keyboard types (typed ones are dropped).
const pasteBase = 0x100000

func isPaste(r rune) bool { return r >= pasteBase && r <= 0x10FFFD }

// text is what the entry sends: the pastes expanded.
func (x entry) text() string {
	var b strings.Builder
	for _, r := range x.buf {
		if isPaste(r) {
			b.WriteString(x.pastes[r-pasteBase])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// shown is the entry as the input line shows it, and where rune offset
// cursor falls in it.
func (x entry) shown(cursor int) ([]rune, int) {
	var out []rune
	at := 0
	for i, r := range x.buf {
		if i == cursor {
			at = len(out)
		}
		if isPaste(r) {
			out = append(out, []rune(pasteLabel(int(r-pasteBase)+1, x.pastes[r-pasteBase]))...)
			continue
		}
		out = append(out, r)
	}
	if cursor >= len(x.buf) {
		at = len(out)
	}
	return out, at
}

// oneLine is the entry on one line (the queue, the history search).
func (x entry) oneLine() string {
	s, _ := x.shown(0)
	return strings.ReplaceAll(string(s), "\n", " ↵ ")
}

func (x entry) clone() entry {
	return entry{buf: append([]rune(nil), x.buf...), pastes: append([]string(nil), x.pastes...)}
}

// entryOf is a text as an entry (a resumed session's input): several
// lines become one paste.
func entryOf(s string) entry {
	if strings.Contains(s, "\n") {
		return entry{buf: []rune{pasteBase}, pastes: []string{s}}
	}
	return entry{buf: []rune(s)}
}

// pasteLabel is how paste number n shows in the input line.
func pasteLabel(n int, s string) string {
	return "[Pasted text #" + strconv.Itoa(n) + " +" + strconv.Itoa(strings.Count(s, "\n")+1) + " lines]"
}

func (e *editor) empty() bool { return len(e.buf) == 0 }

// display is the input as shown and the cursor's rune offset in it.
func (e *editor) display() ([]rune, int) { return e.shown(e.cursor) }

func (e *editor) reset() {
	e.entry, e.cursor = entry{}, 0
	e.hist = len(e.history)
}

// submit returns the input and records it in history.
func (e *editor) submit() string {
	t := e.text()
	if strings.TrimSpace(t) != "" {
		e.history = append(e.history, e.clone())
	}
	e.reset()
	return t
}

// set replaces the input with an entry, the cursor at its end.
func (e *editor) set(x entry) {
	e.entry, e.cursor = x.clone(), len(x.buf)
}

// insert types s at the cursor. Control characters other than tab and
// newline are dropped: they would move the terminal's cursor; so are the
// runes that stand for pastes.
func (e *editor) insert(s string) {
	r := []rune(strings.Map(func(r rune) rune {
		if (r < ' ' && r != '\t' && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) || isPaste(r) {
			return -1
		}
		return r
	}, s))
	e.buf = append(e.buf[:e.cursor], append(r, e.buf[e.cursor:]...)...)
	e.cursor += len(r)
}

// pasted handles a bracketed paste: several lines become a placeholder at
// the cursor, one line is inserted like typing.
func (e *editor) pasted(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	s = strings.TrimRight(s, "\n")
	if !strings.Contains(s, "\n") {
		e.insert(s)
		return
	}
	if len(e.pastes) >= 0x10FFFD-pasteBase {
		return
	}
	atom := pasteBase + rune(len(e.pastes))
	e.pastes = append(e.pastes, s)
	e.buf = append(e.buf[:e.cursor], append([]rune{atom}, e.buf[e.cursor:]...)...)
	e.cursor++
}

// backslashBeforeCursor: Enter after a backslash at the end of the input
// inserts a newline instead of sending.
func (e *editor) backslashBeforeCursor() bool {
	return e.cursor == len(e.buf) && e.cursor > 0 && e.buf[e.cursor-1] == '\\'
}

func (e *editor) backspace() {
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

// up walks back through history and stops at the oldest entry, shown as
// it was sent (its pastes as placeholders).
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
		e.set(entry{})
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
