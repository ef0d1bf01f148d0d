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

func TestEditorPaste(t *testing.T) {
	var e editor
	e.pasted("a\r\nb\rc\nd\ne\n")
	if s, _ := e.display(); string(s) != "[copy 5 lines]" {
		t.Fatalf("display %q", s)
	}
	e.insert("typing is ignored")
	if got := e.submit(); got != "a\nb\nc\nd\ne" {
		t.Fatalf("sent %q", got)
	}
	e.pasted("one line")
	if e.text() != "one line" {
		t.Fatalf("single-line paste %q", e.text())
	}
	e.reset()
	e.pasted("x\ny")
	e.backspace()
	if !e.empty() {
		t.Fatal("backspace did not clear the paste")
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
	if s, _ := e.display(); string(s) != "[copy 2 lines]" || e.text() != "one\ntwo" {
		t.Fatalf("a multi-line entry shows %q", string(s))
	}
	e.insert("\x1b[31m\x07x")
	if e.text() != "one\ntwo" {
		t.Fatal("typing changed a recalled multi-line entry")
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
