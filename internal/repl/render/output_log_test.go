package render

import (
	"fmt"
	"strings"
	"testing"
)

// Past what is kept, a flood's first and latest lines stay, the count of
// lines let go is right, and the last line shown is the real end.
func TestOutputLogKeepsHeadAndRealEnd(t *testing.T) {
	var l outputLog
	const n = 200000 // ~6 MiB
	for i := 1; i <= n; i += 100 {
		var b strings.Builder
		for j := i; j < i+100; j++ {
			fmt.Fprintf(&b, "flood line %06d %s\n", j, strings.Repeat("x", 12))
		}
		l.add("stdout", b.String())
	}
	l.add("stderr", "warning: almost\n")
	l.add("stdout", "FLOOD-DONE")
	if got := l.count(); got != n+2 {
		t.Fatalf("count %d, want %d", got, n+2)
	}
	last := l.last(3)
	if len(last) != 3 || last[0].text != fmt.Sprintf("flood line %06d %s", n, strings.Repeat("x", 12)) ||
		!last[1].stderr || last[2].text != "FLOOD-DONE" {
		t.Fatalf("last lines %+v", last)
	}
	head, dropped, tail := l.kept()
	if !strings.HasPrefix(head[0].text, "flood line 000001 ") || dropped == 0 ||
		len(head)+dropped+len(tail) != n+2 || tail[len(tail)-1].text != "FLOOD-DONE" {
		t.Fatalf("head %d, dropped %d, tail %d", len(head), dropped, len(tail))
	}
	kept := 0
	for _, x := range append(head, tail...) {
		kept += len(x.text)
	}
	if kept > keptHead+keptTail+longestLine {
		t.Fatalf("kept %d bytes", kept)
	}
}

// A line without an end is broken into pieces, so it cannot grow without
// bound; a short output is kept whole.
func TestOutputLogLongLineAndShortOutput(t *testing.T) {
	var l outputLog
	for range 40 {
		l.add("stdout", strings.Repeat("y", 10000))
	}
	if len(l.partial[0]) > longestLine || l.count() != 7 {
		t.Fatalf("partial %d bytes, %d lines", len(l.partial[0]), l.count())
	}
	var s outputLog
	s.add("stdout", "a\nb\n")
	s.add("stderr", "c")
	head, dropped, tail := s.kept()
	if len(head) != 2 || dropped != 0 || len(tail) != 1 || !tail[0].stderr {
		t.Fatalf("%+v %d %+v", head, dropped, tail)
	}
}
