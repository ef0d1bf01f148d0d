package edit

import (
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/textcut"
)

const (
	// closestMaxLines bounds the window compared and shown.
	closestMaxLines = 40
	// closestContext lines are shown around the closest region.
	closestContext = 2
	// closestMinScore is the mean line similarity below which nothing is
	// shown: a random region would only mislead the model.
	closestMinScore  = 0.5
	closestLineChars = 200
)

// closestRegion finds the lines of content (at or after byte offset from)
// most like old — a window as long as old, ranked by mean line similarity —
// and returns them numbered like read's output with closestContext lines
// around; "" when nothing is similar enough. The model sees how the file
// really reads there and can correct its text.
func closestRegion(content, old string, from int) string {
	if len(content) > tolerantMaxBytes || from > len(content) {
		return ""
	}
	oldT, _, _ := trimBlankLines(normaliseEOL(old), -1, -1)
	want := splitLines(oldT)
	file := splitLines(content)
	first := lineOf(content, from) - 1
	k := min(len(want), closestMaxLines, len(file)-first)
	if k <= 0 {
		return ""
	}
	wantKeys := lineKeys(want[:k])
	fileKeys := lineKeys(file)
	best, bestScore := -1, 0.0
	for w := first; w+k <= len(file); w++ {
		score := 0.0
		for j := range k {
			score += similarity(wantKeys[j], fileKeys[w+j])
		}
		if score /= float64(k); score > bestScore {
			best, bestScore = w, score
		}
	}
	if best < 0 || bestScore < closestMinScore {
		return ""
	}
	return numberedLines(file, best, best+k)
}

// numberedLines shows file lines [lo, hi) (0-based) with context, numbered.
func numberedLines(file []string, lo, hi int) string {
	var b strings.Builder
	from, to := max(lo-closestContext, 0), min(hi+closestContext, len(file))
	if lo+1 == hi {
		fmt.Fprintf(&b, "line %d:\n", hi)
	} else {
		fmt.Fprintf(&b, "lines %d-%d:\n", lo+1, hi)
	}
	for i := from; i < to; i++ {
		text, cut := textcut.Runes(textcut.Valid(file[i]), closestLineChars)
		if cut {
			text += "…"
		}
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, text)
	}
	return b.String()
}

// splitLines splits s into lines without their line breaks.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// lineKeys normalises lines with every forgiven drift.
func lineKeys(lines []string) []string {
	keys := make([]string, len(lines))
	for i, l := range lines {
		keys[i] = strings.TrimSpace(buildView(l, allDrift, false).text)
	}
	return keys
}

// similarity of two lines in [0, 1]: the share of the longer line covered
// by their common prefix and suffix. Cheap, and good at the usual drift of
// one changed spot in a line.
func similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	if a == "" || b == "" {
		return 0
	}
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return float64(p+s) / float64(max(len(a), len(b)))
}
