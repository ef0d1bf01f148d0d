package tools

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// unifiedDiff is the unified diff of a file at rel going from before to after,
// with "--- a/<rel>" and "+++ b/<rel>" headers; "" when nothing changed.
func unifiedDiff(rel, before, after string) string {
	return unifiedDiffNames("a/"+rel, "b/"+rel, before, after)
}

// unifiedDiffNames is unifiedDiff with its own header names (a move).
func unifiedDiffNames(from, to, before, after string) string {
	if before == after {
		return ""
	}
	edits := udiff.Lines(before, after)
	d, err := udiff.ToUnified(from, to, before, edits, udiff.DefaultContextLines)
	if err != nil {
		return ""
	}
	return d
}

// diffStat counts the added and removed lines of a unified diff.
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
