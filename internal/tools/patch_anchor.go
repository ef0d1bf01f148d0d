package tools

import (
	"fmt"
	"sort"
	"strings"
)

// Anchors (the text after @@) as models write them. A model writes the line
// that opens the function or block a hunk is in, often for every hunk, the
// way `git diff` heads its hunks: so a later hunk may repeat the anchor of
// the function an earlier hunk already changed, and the anchor line then
// lies above the previous hunk. The rules:
//
//   - An anchor names a line at or above the hunk's first line: the nearest
//     line above it that reads like the anchor (equal once normalised, else
//     starting with it). Stacked anchors each lie above the next.
//   - The hunk's lines are searched after the previous hunk, anywhere the
//     anchors are above them; a place inside the anchor's block (its
//     indentation) comes first, then any place below the anchor that no
//     line like the anchor line (same indentation and first word) separates
//     from it: that would be another function.
//   - The place must be unique: two places are refused with their line
//     numbers, never resolved by taking the first.
//   - A hunk that only adds lines goes right after its anchor line, which
//     must then be after the previous hunk and unique there.

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

// anchorLines lists, for each anchor of a stack, the offsets of the lines
// that read like it; a failure names an anchor no line reads like.
func anchorLines(text string, anchors []string, cache *textCache) ([][]int, *hunkError) {
	ix := cache.lines(text)
	var chain [][]int
	for _, a := range anchors {
		key := lineKeys([]string{a})[0]
		if key == "" {
			continue
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
		if equal == nil {
			return nil, &hunkError{msg: fmt.Sprintf("anchor line %q not found", a)}
		}
		chain = append(chain, equal)
	}
	return chain, nil
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

// findBelowAnchors is findMatch for a hunk with anchors: the unique place
// below them, inside their blocks first.
func findBelowAnchors(text string, q matchQuery, chain [][]int) (match, *matchError) {
	ix := q.cache.lines(text)
	for _, scoped := range []bool{true, false} {
		for h := range ladderHits(text, q) {
			var keep []candidate
			for _, c := range h.cands {
				if belowAnchors(text, c, chain, scoped, ix) {
					keep = append(keep, c)
				}
			}
			switch len(keep) {
			case 0:
				continue
			case 1:
				return buildMatch(text, keep[0], h, q)
			}
			return match{}, &matchError{count: len(keep), lines: candidateLines(text, keep), rung: h.rung}
		}
	}
	return match{}, &matchError{closest: closestRegion(text, q.old, q.from)}
}

// insertAfterAnchor places a hunk that only adds lines: after its anchor
// line, which must be unique after pos.
func insertAfterAnchor(text string, pos int, chain [][]int, anchor string, ix *lineIndex) (int, *hunkError) {
	last := chain[len(chain)-1]
	var at []int
	for _, a := range last[sort.SearchInts(last, pos):] {
		if belowAnchors(text, candidate{a - 1, a}, chain[:len(chain)-1], false, ix) { // outer anchors strictly above
			at = append(at, a)
		}
	}
	switch len(at) {
	case 0:
		return 0, &hunkError{msg: fmt.Sprintf("anchor line %q not found after line %d", anchor, lineOf(text, pos))}
	case 1:
		if nl := strings.IndexByte(text[at[0]:], '\n'); nl >= 0 {
			return at[0] + nl + 1, nil
		}
		return len(text), nil
	}
	var lines []string
	for i, a := range at {
		if i == editMaxLinesListed {
			lines = append(lines, "…")
			break
		}
		lines = append(lines, fmt.Sprint(lineOf(text, a)))
	}
	return 0, &hunkError{msg: fmt.Sprintf("anchor line %q matches %d lines after the previous hunk (lines %s); add a context line to say where the new lines go",
		anchor, len(at), strings.Join(lines, ", "))}
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
