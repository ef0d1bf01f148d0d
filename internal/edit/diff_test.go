package edit

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

// The diff of the changed window, its hunks moved into place, is a diff of
// the whole files, whatever the edit (lines added, removed or changed at the
// start, the end or anywhere, with or without a final newline): applied to
// before it gives after, with as many lines added and removed as the diff
// of the whole files. (Where a run of equal lines makes the choice free,
// it may pick another of them.)
func TestWindowedDiffIsAWholeDiff(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "", "a", "x y", "}"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))] + "\n")
		}
		s := b.String()
		if r.IntN(3) == 0 {
			s = strings.TrimSuffix(s, "\n")
		}
		return s
	}
	for i := range 3000 {
		before := text(r.IntN(40))
		lines := strings.SplitAfter(before, "\n")
		for range 1 + r.IntN(3) {
			at := r.IntN(len(lines) + 1)
			switch r.IntN(3) {
			case 0:
				lines = append(lines[:at], append([]string{text(1 + r.IntN(3))}, lines[at:]...)...)
			case 1:
				if at < len(lines) {
					lines = append(lines[:at], lines[at+1:]...)
				}
			default:
				if at < len(lines) {
					lines[at] = words[r.IntN(len(words))] + "z" + lines[at]
				}
			}
		}
		after := strings.Join(lines, "")
		diff := DiffFile("f", before, after)
		got := diff.Text
		if before == after {
			if got != "" || diff.Added != 0 || diff.Removed != 0 {
				t.Fatalf("case %d: a diff of no change: %q", i, got)
			}
			continue
		}
		whole, _ := udiff.ToUnified("a/f", "b/f", before, udiff.Lines(before, after), udiff.DefaultContextLines)
		ga, gr := diffStat(got)
		wa, wr := diffStat(whole)
		if applied, ok := applyUnified(before, got); !ok || applied != after || ga != wa || gr != wr {
			t.Fatalf("case %d: %q -> %q\ngot (+%d -%d):\n%s\nwhole (+%d -%d):\n%s", i, before, after, ga, gr, got, wa, wr, whole)
		}
		if diff.Added != ga || diff.Removed != gr {
			t.Fatalf("case %d: counted +%d -%d, the diff's text shows +%d -%d:\n%s", i, diff.Added, diff.Removed, ga, gr, got)
		}
	}
}

// applyUnified applies a unified diff to before, checking every context
// and removed line against it.
func applyUnified(before, d string) (string, bool) {
	src := strings.SplitAfter(before, "\n")
	var out []string
	at := 0 // next source line, 0-based
	lines := strings.SplitAfter(d, "\n")
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		if m := hunkStart().FindStringSubmatch(l); m != nil {
			from, _ := strconv.Atoi(m[1])
			if m[2] == ",0" {
				from++ // an empty side names the line before
			}
			for at < from-1 {
				out = append(out, src[at])
				at++
			}
			continue
		}
		if l == "" {
			continue
		}
		body := l[1:]
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`) {
			body = strings.TrimSuffix(body, "\n")
			i++
		}
		switch l[0] {
		case ' ', '-':
			if at >= len(src) || src[at] != body {
				return "", false
			}
			if l[0] == ' ' {
				out = append(out, body)
			}
			at++
		case '+':
			out = append(out, body)
		}
	}
	out = append(out, src[at:]...)
	return strings.Join(out, ""), true
}

// diffStat counts the added and removed lines of a unified diff's text:
// the oracle for the counts Diff carries.
func diffStat(d string) (added, removed int) {
	lines := strings.Split(d, "\n")
	for i, l := range lines {
		if i < 2 { // the ---/+++ headers
			continue
		}
		switch {
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}
