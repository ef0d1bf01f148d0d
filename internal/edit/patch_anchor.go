package edit

import (
	"sort"
	"strings"
)

// Anchors (the text after @@) as models write them. A model writes the line
// that opens the function or block a hunk is in, often for every hunk, the
// way `git diff` heads its hunks: so a later hunk may repeat the anchor of
// the function an earlier hunk already changed, and the anchor line then
// lies above the previous hunk. An anchor names a line at or above the
// hunk's first line: the nearest line above it that reads like the anchor
// (equal once normalised, else starting with it). Stacked anchors each lie
// above the next. How anchors weigh in placing a hunk: see patch_place.go.

// lineIndex is a text's lines, normalised for comparison with anchors.
type lineIndex struct {
	starts []int    // offset of each line
	keys   []string // each line with every forgiven drift normalised
	scopes map[int]int
}

func (c *textCache) lines(text string) *lineIndex {
	if c.index != nil {
		return c.index
	}
	ix := &lineIndex{scopes: map[int]int{}}
	for at := 0; at < len(text); {
		end := strings.IndexByte(text[at:], '\n')
		if end < 0 {
			end = len(text) - at
		}
		ix.starts = append(ix.starts, at)
		at += end + 1
	}
	ix.keys = lineKeys(splitLines(text))
	c.index = ix
	return ix
}

// anchorLines lists the offsets of the lines that read like anchor a:
// equal once normalised, else starting with it. ok is false when no line
// does; an anchor that normalises to nothing names no line and is
// ignored (nil, true).
func anchorLines(text, a string, ix *lineIndex) ([]int, bool) {
	key := lineKeys([]string{a})[0]
	if key == "" {
		return nil, true
	}
	var equal, prefixed []int
	for i, k := range ix.keys {
		switch {
		case k == key:
			equal = append(equal, ix.starts[i])
		case strings.HasPrefix(k, key):
			prefixed = append(prefixed, ix.starts[i])
		}
	}
	if equal == nil {
		equal = prefixed
	}
	return equal, equal != nil
}

// nearestAbove is the last of the sorted offsets at or before at (strictly
// before with strict), or -1.
func nearestAbove(offsets []int, at int, strict bool) int {
	i := sort.Search(len(offsets), func(i int) bool {
		if strict {
			return offsets[i] >= at
		}
		return offsets[i] > at
	})
	if i == 0 {
		return -1
	}
	return offsets[i-1]
}

// belowAnchors reports whether the candidate c lies below the chain of
// anchors, each anchor line being the nearest one above what it anchors;
// scoped also asks each to lie inside the block the anchor line opens.
func belowAnchors(text string, c candidate, chain [][]int, scoped bool, ix *lineIndex) bool {
	at, end := c.start, c.end
	for k := len(chain) - 1; k >= 0; k-- {
		a := nearestAbove(chain[k], at, k < len(chain)-1)
		if a < 0 {
			return false
		}
		scope := ix.scopeEnd(text, a)
		if scoped && end > scope {
			return false
		}
		if at >= scope && ix.siblingBetween(text, a, scope, at) {
			return false
		}
		at, end = a, a+1
	}
	return true
}

// siblingBetween reports whether a line like the anchor line at a (same
// indentation, same first word: "func", "def", "##") starts in [from, to):
// a place there lies in another function than the one the anchor names.
func (ix *lineIndex) siblingBetween(text string, a, from, to int) bool {
	line := text[a:lineTextEnd(text, a)]
	ind, word := leadingWS(line), firstWord(line)
	if word == "" {
		return false
	}
	i := sort.SearchInts(ix.starts, from)
	for ; i < len(ix.starts) && ix.starts[i] < to; i++ {
		l := text[ix.starts[i]:lineTextEnd(text, ix.starts[i])]
		if leadingWS(l) == ind && firstWord(l) == word {
			return true
		}
	}
	return false
}

// firstWord is the keyword a line starts with: its first run of letters,
// digits and the marks of headings and decorators.
func firstWord(line string) string {
	t := strings.TrimLeft(line, " \t")
	n := 0
	for n < len(t) && (t[n] == '_' || t[n] == '#' || t[n] == '@' || t[n] == '$' ||
		('a' <= t[n] && t[n] <= 'z') || ('A' <= t[n] && t[n] <= 'Z') || ('0' <= t[n] && t[n] <= '9')) {
		n++
	}
	return t[:n]
}

func (ix *lineIndex) scopeEnd(text string, at int) int {
	if e, ok := ix.scopes[at]; ok {
		return e
	}
	e := anchorScopeEnd(text, at)
	ix.scopes[at] = e
	return e
}

// anchorScopeEnd guesses where the block opened by the anchor line at
// offset at ends: at the next line indented no deeper that is not a closing
// bracket.
func anchorScopeEnd(text string, at int) int {
	nl := strings.IndexByte(text[at:], '\n')
	if nl < 0 {
		return len(text)
	}
	indent := indentWidth(leadingWS(text[at : at+nl]))
	for ls := at + nl + 1; ls < len(text); {
		end := strings.IndexByte(text[ls:], '\n')
		if end < 0 {
			end = len(text) - ls
		}
		line := text[ls : ls+end]
		t := strings.TrimSpace(line)
		if t != "" && indentWidth(leadingWS(line)) <= indent && !closesBlock(t) {
			return ls
		}
		ls += end + 1
	}
	return len(text)
}

func closesBlock(t string) bool {
	return strings.HasPrefix(t, "}") || strings.HasPrefix(t, ")") || strings.HasPrefix(t, "]") ||
		t == "end" || strings.HasPrefix(t, "end ") || strings.HasPrefix(t, "</")
}
