package repl

import (
	"strings"
	"testing"
)

// The core takes the leading plain messages; commands wait for the turn's
// end, in order.
func TestInbox(t *testing.T) {
	var shown [][]entry
	b := inbox{onChange: func(items []entry) { shown = append(shown, items) }}
	b.push(entryOf("also this"))
	b.push(entryOf("and that"))
	b.push(entryOf("/help"))
	b.push(entryOf("later"))
	if got := b.take(); strings.Join(got, "|") != "also this|and that" {
		t.Fatalf("take %q", got)
	}
	if got := b.take(); got != nil {
		t.Fatalf("a command was taken: %q", got)
	}
	if s, _ := b.pop(); s.text() != "/help" {
		t.Fatalf("pop %q", s)
	}
	b.clear()
	if _, ok := b.pop(); ok || len(shown[len(shown)-1]) != 0 {
		t.Fatal("clear left something")
	}
}
