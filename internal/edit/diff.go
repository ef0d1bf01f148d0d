package edit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Diff is a unified diff and the lines it adds and removes, counted from
// the edits it was rendered from.
type Diff struct {
	Text           string // "" when nothing changed
	Added, Removed int
}

// DiffFile is the unified diff of a file at rel going from before to
// after, with "--- a/<rel>" and "+++ b/<rel>" headers.
func DiffFile(rel, before, after string) Diff {
	return DiffNames("a/"+rel, "b/"+rel, before, after)
}

// DiffNames is DiffFile with its own header names (a move).
// Only the part of the files that differs, with its context lines, is
// diffed — the lines before and after it are the same in both — and the
// hunks' line numbers are moved back into place: an edit of one line of a
// 60 MB file diffs a few lines, not two copies of the file split into
// lines.
func DiffNames(from, to, before, after string) Diff {
	if before == after {
		return Diff{}
	}
	start, endB, endA := changedWindow(before, after, udiff.DefaultContextLines)
	b, a := before[start:endB], after[start:endA]
	edits := udiff.Lines(b, a)
	d, err := udiff.ToUnified(from, to, b, edits, udiff.DefaultContextLines)
	if err != nil {
		return Diff{}
	}
	out := Diff{Text: shiftHunks(d, strings.Count(before[:start], "\n"))}
	// Line edits replace whole lines: each removes the lines of its range
	// and adds those of its new text, as the rendered hunks show them.
	for _, e := range edits {
		out.Removed += countLines(b[e.Start:e.End])
		out.Added += countLines(e.New)
	}
	return out
}

// countLines counts lines the way a diff does: a final line without a
// newline counts, an empty text has none.
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// changedWindow is the part of before and after that differs, widened to
// whole lines and ctx lines of context on each side: before[start:endB]
// becomes after[start:endA], and the rest is the same in both.
func changedWindow(before, after string, ctx int) (start, endB, endA int) {
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	start = strings.LastIndexByte(before[:p], '\n') + 1
	for i := 0; i < ctx && start > 0; i++ {
		start = strings.LastIndexByte(before[:start-1], '\n') + 1
	}
	// The common tail, not reaching back into the common head.
	s := 0
	for s < len(before)-p && s < len(after)-p && before[len(before)-1-s] == after[len(after)-1-s] {
		s++
	}
	// Within the tail, before and after hold the same text, so their ends
	// move together: to where both end a line, then ctx lines more.
	shift := len(after) - len(before)
	endB = len(before) - s
	lineEnd := func(text string, i int) bool { return i == len(text) || i > 0 && text[i-1] == '\n' }
	for !lineEnd(before, endB) || !lineEnd(after, endB+shift) {
		endB = nextLine(before, endB)
	}
	for i := 0; i < ctx; i++ {
		endB = nextLine(before, endB)
	}
	return start, endB, endB + shift
}

// nextLine is the index just past the line break at or after i.
func nextLine(text string, i int) int {
	if nl := strings.IndexByte(text[i:], '\n'); nl >= 0 {
		return i + nl + 1
	}
	return len(text)
}

// hunkStart is a unified diff's "@@ -l[,n] +l[,n] @@", compiled at the
// first edit rather than at every start.
var hunkStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@`)
})

// shiftHunks adds lines to the line numbers of d's hunk headers.
func shiftHunks(d string, lines int) string {
	if lines == 0 || d == "" {
		return d
	}
	parts := strings.SplitAfter(d, "\n")
	for i, l := range parts {
		m := hunkStart().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		from, _ := strconv.Atoi(m[1])
		to, _ := strconv.Atoi(m[3])
		parts[i] = fmt.Sprintf("@@ -%d%s +%d%s @@", from+lines, m[2], to+lines, m[4]) + l[len(m[0]):]
	}
	return strings.Join(parts, "")
}
