package repl

import (
	"context"
	"io"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
)

// Lines arriving in one read (a paste into a terminal without bracketed
// paste) reach the editor as one paste; keys typed one read at a time,
// Enter included, stay keys.
func TestBurstBecomesOnePaste(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	events := make(chan uv.Event, 64)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = uv.NewTerminalReader(newBurstReader(pr), "xterm-256color").StreamEvents(ctx, events) }()
	next := func() uv.Event {
		t.Helper()
		select {
		case ev := <-events:
			return ev
		case <-time.After(5 * time.Second):
			t.Fatal("no event")
			return nil
		}
	}
	nextOf := func(want func(uv.Event) bool) uv.Event {
		t.Helper()
		for {
			if ev := next(); want(ev) {
				return ev
			}
		}
	}
	write := func(s string) {
		if _, err := pw.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}

	write("ls\r") // typed: a key, then Enter
	if ev := next(); ev.(uv.KeyPressEvent).String() != "l" {
		t.Fatalf("first event %#v", ev)
	}
	next()
	if ev := next(); ev.(uv.KeyPressEvent).String() != "enter" {
		t.Fatalf("Enter typed alone: %#v", ev)
	}

	write("line one\rline two\rline three\r")
	paste := nextOf(func(ev uv.Event) bool { _, ok := ev.(uv.PasteEvent); return ok }).(uv.PasteEvent)
	var e editor
	e.insert("see: ")
	e.pasted(paste.Content)
	if e.text() != "see: line one\nline two\nline three" {
		t.Fatalf("paste %q", paste.Content)
	}
	// After the pause, Enter is a key again.
	time.Sleep(3 * burstQuiet)
	write("\r")
	if ev := nextOf(func(ev uv.Event) bool { _, ok := ev.(uv.KeyPressEvent); return ok }); ev.(uv.KeyPressEvent).String() != "enter" {
		t.Fatalf("after the paste: %#v", ev)
	}

	// A real bracketed paste passes as it is.
	write("\x1b[200~a\nb\x1b[201~")
	if p := nextOf(func(ev uv.Event) bool { _, ok := ev.(uv.PasteEvent); return ok }).(uv.PasteEvent); p.Content != "a\nb" {
		t.Fatalf("bracketed paste %q", p.Content)
	}
}
