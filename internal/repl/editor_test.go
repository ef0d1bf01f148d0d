package repl

import "testing"

func TestEditorKeys(t *testing.T) {
	var e editor
	e.insert("hello world")
	e.wordLeft()
	e.insert("big ")
	if e.text() != "hello big world" {
		t.Fatalf("%q", e.text())
	}
	e.home()
	e.del()
	e.end()
	e.backspace()
	if e.text() != "ello big worl" {
		t.Fatalf("%q", e.text())
	}
	e.deleteWordLeft()
	if e.text() != "ello big " {
		t.Fatalf("ctrl+w: %q", e.text())
	}
	e.home()
	e.wordRight()
	e.killToEnd()
	if e.text() != "ello" {
		t.Fatalf("ctrl+k: %q", e.text())
	}
	e.insert("中文")
	if s, c := e.display(); string(s) != "ello中文" || c != 6 {
		t.Fatalf("display %q %d", s, c)
	}
}

// A paste of several lines is a placeholder inside the line: typing
// before and after it stays, it moves and deletes as one character, and
// it is expanded when sent; a recalled entry shows its placeholders again.
func TestEditorPaste(t *testing.T) {
	var e editor
	e.insert("review this: ")
	e.pasted("a\r\nb\rc\nd\ne\n")
	e.insert(" and tell me")
	if s, c := e.display(); string(s) != "review this: [Pasted text #1 +5 lines] and tell me" || c != len([]rune(string(s))) {
		t.Fatalf("display %q %d", s, c)
	}
	e.wordLeft()
	e.wordLeft()
	e.wordLeft()
	e.left() // over the space, onto the end of the placeholder
	if _, c := e.display(); c != len("review this: [Pasted text #1 +5 lines]") {
		t.Fatalf("cursor at %d", c)
	}
	e.pasted("x\ny")
	e.backspace() // the second paste only
	e.backspace() // the first paste only
	if s, _ := e.display(); string(s) != "review this:  and tell me" || e.text() != "review this:  and tell me" {
		t.Fatalf("after backspaces %q", s)
	}
	e.reset()
	e.insert("before ")
	e.pasted("one\ntwo")
	e.insert(" after \U00100000") // a typed stand-in rune is dropped
	e.pasted("three\nfour\nfive")
	if got := e.submit(); got != "before one\ntwo after three\nfour\nfive" {
		t.Fatalf("sent %q", got)
	}
	e.up()
	if s, _ := e.display(); string(s) != "before [Pasted text #1 +2 lines] after [Pasted text #2 +3 lines]" {
		t.Fatalf("recalled %q", s)
	}
	e.pasted("one line")
	if e.text() != "before one\ntwo after three\nfour\nfiveone line" {
		t.Fatalf("single-line paste %q", e.text())
	}
	e.reset()
	e.pasted("x\ny")
	e.backspace()
	if !e.empty() {
		t.Fatal("backspace did not clear the paste")
	}
	if s, _ := entryOf("p\nq").shown(0); string(s) != "[Pasted text #1 +2 lines]" {
		t.Fatalf("a loaded entry of two lines shows %q", s)
	}
}

func TestEditorHistory(t *testing.T) {
	var e editor
	for _, s := range []string{"first", "second", "third"} {
		e.insert(s)
		e.submit()
	}
	e.insert("draft")
	e.up()
	e.up()
	e.up()
	e.up() // stays at the oldest
	if e.text() != "first" {
		t.Fatalf("up×4: %q", e.text())
	}
	e.down()
	e.down()
	if e.text() != "third" {
		t.Fatalf("down×2: %q", e.text())
	}
	e.down() // past the newest: an empty line, the draft is not kept
	if e.text() != "" {
		t.Fatalf("past newest: %q", e.text())
	}
	e.down()
	if e.text() != "" {
		t.Fatal("down on the empty line changed it")
	}
	e.insert("   ")
	e.submit()
	if len(e.history) != 3 {
		t.Fatal("blank input entered history")
	}
}

func TestEditorNewlinesAndMultiLineHistory(t *testing.T) {
	var e editor
	e.insert("one\\")
	if !e.backslashBeforeCursor() {
		t.Fatal("a trailing backslash not seen")
	}
	e.backspace()
	e.insert("\ntwo")
	e.home()
	if e.cursor != 4 {
		t.Fatalf("home went to %d, want the start of the second line", e.cursor)
	}
	e.end()
	if got := e.submit(); got != "one\ntwo" {
		t.Fatalf("sent %q", got)
	}
	e.insert("single")
	e.submit()
	e.up()
	e.up()
	// Typed lines come back as typed, to edit.
	if s, c := e.display(); string(s) != "one\ntwo" || c != 7 {
		t.Fatalf("a multi-line entry shows %q", string(s))
	}
	e.insert("\x1b[31m\x07x")
	if e.text() != "one\ntwo[31mx" {
		t.Fatalf("typing after a recalled multi-line entry: %q", e.text())
	}
	e.reset()
	e.insert("\x1b[31mred\x07")
	if e.text() != "[31mred" {
		t.Fatalf("control characters typed in: %q", e.text())
	}
}

func TestEditorWord(t *testing.T) {
	var e editor
	e.insert("read @no and")
	e.cursor = 8
	start, w := e.word()
	if start != 5 || w != "@no" {
		t.Fatalf("word %d %q", start, w)
	}
	e.replaceWord(start, "@notes.txt ")
	if e.text() != "read @notes.txt  and" || e.cursor != 16 {
		t.Fatalf("%q %d", e.text(), e.cursor)
	}
}
