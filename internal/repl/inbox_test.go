package repl

import (
	"strings"
	"testing"
)

// The core takes the leading plain messages; commands wait for the turn's
// end, in order.
func TestInbox(t *testing.T) {
	var shown [][]string
	b := inbox{onChange: func(items []string) { shown = append(shown, items) }}
	b.push("also this")
	b.push("and that")
	b.push("/help")
	b.push("later")
	if got := b.take(); strings.Join(got, "|") != "also this|and that" {
		t.Fatalf("take %q", got)
	}
	if got := b.take(); got != nil {
		t.Fatalf("a command was taken: %q", got)
	}
	if s, _ := b.pop(); s != "/help" {
		t.Fatalf("pop %q", s)
	}
	b.clear()
	if _, ok := b.pop(); ok || len(shown[len(shown)-1]) != 0 {
		t.Fatal("clear left something")
	}
}
