package edit

import (
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// tabWidth is how many columns a tab counts for when indentation written
// with spaces is converted to a file indented with tabs, or back.
const tabWidth = 4

// indentPair is how the model indented a line of old_string and how the file
// really indents it; at is twice the line's index among the old lines.
type indentPair struct {
	model, file string
	at          int
}

// indentMap turns the model's indentation into the file's, learnt from the
// lines of old_string and the region they matched: the model re-indented
// the block (or used spaces for tabs) and what it writes new carries the
// same drift.
type indentMap struct {
	known map[string]string // model indentation → the file's, as seen
	// clash lists model indentations seen with two different widths in the
	// file: the model flattened a structure, and lines it adds at that
	// indentation have no one place.
	clash map[string]bool
	pairs []indentPair
	// shifts: the model's indentation is the file's with the prefix
	// shiftFrom in place of shiftTo.
	shiftFrom, shiftTo string
	shifts             bool
	tabs               bool // the file indents with tabs
	// modelUnit and fileUnit are the indentation steps, in columns, of the
	// model's text and of the file (0: unknown).
	modelUnit, fileUnit int
	// mapsNew: no clash, and deeper lines of the model's are never
	// shallower in the file, so a width the pairs do not show can be mapped.
	mapsNew bool
}

// newIndentMap learns the map from the model's old lines and the file's
// region lines (same count). firstAtStart says whether the first line
// starts a line of the file; if not, its indentation tells nothing. ok is
// false when the model's indentation already is the file's.
func newIndentMap(old, region []string, firstAtStart bool, modelText string, file fileIndent) (indentMap, bool) {
	m := indentMap{known: map[string]string{}, clash: map[string]bool{}, tabs: file.tabs, fileUnit: file.unit}
	shift := false
	for i := range old {
		if i >= len(region) || (i == 0 && !firstAtStart) || isBlank(old[i]) {
			continue
		}
		p := indentPair{leadingWS(old[i]), leadingWS(region[i]), 2 * i}
		m.pairs = append(m.pairs, p)
		if to, ok := m.known[p.model]; !ok {
			m.known[p.model] = p.file
		} else if indentWidth(to) != indentWidth(p.file) {
			m.clash[p.model] = true
		}
		shift = shift || p.model != p.file
		m.tabs = m.tabs || strings.Contains(p.file, "\t")
	}
	if !shift {
		return indentMap{}, false
	}
	if swap, ok := m.sameWidthSwap(); ok {
		// The lines the model wrote with the other characters say which
		// the file indents with here.
		m.tabs = strings.Contains(swap.file, "\t")
	}
	m.modelUnit = indentStep(strings.Split(modelText, "\n"))
	m.mapsNew = len(m.clash) == 0 && m.monotonic()
	m.learnShift()
	return m, true
}

// sameWidthSwap is a pair the model indented as wide as the file but with
// the other characters (a tab for four spaces), one with tabs in the file
// first.
func (m indentMap) sameWidthSwap() (indentPair, bool) {
	var found indentPair
	ok := false
	for _, p := range m.pairs {
		if p.model != "" && p.file != "" && strings.Contains(p.model, "\t") != strings.Contains(p.file, "\t") &&
			indentWidth(p.model) == indentWidth(p.file) && (!ok || strings.Contains(p.file, "\t")) {
			found, ok = p, true
		}
	}
	return found, ok
}

// learnShift checks whether the model's indentation is the file's with
// one prefix swapped for another (a block shifted by whole levels, in the
// file's own characters): every pair is (from+rest, to+rest). Lines
// written as wide with the other characters are no shift: what follows
// the prefix would keep the model's characters.
func (m *indentMap) learnShift() {
	if _, swapped := m.sameWidthSwap(); swapped {
		return
	}
	base := m.pairs[0]
	for _, p := range m.pairs {
		if len(p.model) < len(base.model) {
			base = p
		}
	}
	// What the shortest pair has in common at its end is the part the
	// shift leaves ("  \t" for "\t": two spaces put before a tab).
	k := 0
	for k < len(base.model) && k < len(base.file) && base.model[len(base.model)-1-k] == base.file[len(base.file)-1-k] {
		k++
	}
	from, to := base.model[:len(base.model)-k], base.file[:len(base.file)-k]
	for _, p := range m.pairs {
		rest, ok := strings.CutPrefix(p.model, from)
		if !ok || p.file != to+rest {
			return
		}
	}
	m.shiftFrom, m.shiftTo, m.shifts = from, to, true
}

// apply maps one indentation the model wrote to the file's, for a line at
// at (twice an old line's index; odd: between two old lines); ok is false
// when the lines seen do not say where it goes. Where the file writes one
// width two ways (a tab and spaces, or two tabs), the nearest line seen
// with that indentation of the model's, or that width, says which.
func (m indentMap) apply(ind string, at int) (string, bool) {
	if _, ok := m.known[ind]; ok {
		to, _ := m.nearest(at, func(p indentPair) bool { return p.model == ind })
		return to, !m.clash[ind]
	}
	if !m.mapsNew {
		return ind, false
	}
	w := m.mapWidth(indentWidth(ind))
	// A plain shift keeps the model's own characters past it (spaces a
	// line really has in a file indented with tabs).
	if rest, ok := strings.CutPrefix(ind, m.shiftFrom); ok && m.shifts && indentWidth(m.shiftTo+rest) == w {
		return m.shiftTo + rest, true
	}
	if to, ok := m.nearest(at, func(p indentPair) bool { return indentWidth(p.file) == w }); ok {
		return to, true
	}
	return renderIndent(w, m.tabs), true
}

// nearest is the file's indentation of the pair nearest to at that ok
// accepts, the one above on a tie.
func (m indentMap) nearest(at int, ok func(indentPair) bool) (string, bool) {
	best, dist := "", -1
	for _, p := range m.pairs {
		d := p.at - at
		if d < 0 {
			d = -d - 1 // above wins a tie
		}
		if ok(p) && (dist < 0 || d < dist) {
			best, dist = p.file, d
		}
	}
	return best, dist >= 0
}

// indentSwap says which characters the model wrote for the file's: a
// slip has a direction, and only lines written the slip's way carry it.
type indentSwap uint8

const (
	tabsForSpaces indentSwap = 1 << iota // the model wrote tabs where the file has spaces
	spacesForTabs                        // the model wrote spaces where the file has tabs
)

// swapOf is the swap one indentation of the model's for the file's shows.
func swapOf(model, file string) indentSwap {
	switch mt, ft := strings.Contains(model, "\t"), strings.Contains(file, "\t"); {
	case model == "" || file == "" || mt == ft:
		return 0
	case mt:
		return tabsForSpaces
	}
	return spacesForTabs
}

// swapsChars says whether the model indents with tabs where the file has
// spaces, or the reverse (not a block shifted by a tab in a file that
// aligns with spaces: the shift then adds or drops its prefix).
func (m indentMap) swapsChars() indentSwap {
	if m.shifts {
		return swapOf(m.shiftFrom, m.shiftTo)
	}
	var s indentSwap
	for _, p := range m.pairs {
		s |= swapOf(p.model, p.file)
	}
	return s
}

// monotonic reports whether deeper lines of the model's are never
// shallower in the file: else no rule maps a new width.
func (m indentMap) monotonic() bool {
	for _, p := range m.pairs {
		for _, q := range m.pairs {
			if indentWidth(p.model) < indentWidth(q.model) && indentWidth(p.file) > indentWidth(q.file) {
				return false
			}
		}
	}
	return true
}

// mapWidth maps an indentation width the matched lines do not show:
// linearly through the first two distinct levels seen (a 4-space model
// against a 2-space file halves), else from the one level seen: by the
// offset the match needed, or, when that level shows the ratio of the
// model's unit to the file's, each further level of the model's being one
// level of the file's.
func (m indentMap) mapWidth(w int) int {
	m1, f1 := indentWidth(m.pairs[0].model), indentWidth(m.pairs[0].file)
	for _, p := range m.pairs[1:] {
		m2, f2 := indentWidth(p.model), indentWidth(p.file)
		if m2 != m1 && f2 != f1 {
			return max(f1+(w-m1)*(f2-f1)/(m2-m1), 0)
		}
	}
	// A unit ratio shows as the one level seen having the ratio of the
	// units (4 spaces for one tab); anything else is a shift.
	if m1 == 0 || f1 == 0 || m.modelUnit == 0 || m.fileUnit == 0 || m1*m.fileUnit != f1*m.modelUnit {
		return max(f1+w-m1, 0)
	}
	return max(f1+(w-m1)/m.modelUnit*m.fileUnit+(w-m1)%m.modelUnit, 0)
}

// localIndent is how lines indent, where they show it, else as whole
// says.
func localIndent(lines []string, whole fileIndent) fileIndent {
	fi := whole
	if u := indentStep(lines); u > 0 {
		fi.unit = u
	}
	if tabbed, spaced := indentStarts(lines); tabbed+spaced > 0 {
		fi.tabbed, fi.spaced, fi.tabs = tabbed, spaced, tabbed > spaced
	}
	return fi
}

// linesAround is the lines of [start, end) of content with up to 40 lines
// on each side.
func linesAround(content string, start, end int) []string {
	const around = 40
	lo, hi := start, end
	for k := 0; k < around && lo > 0; k++ {
		lo = lineStartBefore(content, lo-1)
	}
	for k := 0; k < around && hi < len(content); k++ {
		if nl := strings.IndexByte(content[hi:], '\n'); nl >= 0 {
			hi += nl + 1
		} else {
			hi = len(content)
		}
	}
	return strings.Split(content[lo:hi], "\n")
}

// fileIndent is how a file indents: its step, whether mostly with tabs,
// and how many lines start with a tab, and with a space.
type fileIndent struct {
	unit           int
	tabs           bool
	tabbed, spaced int
}

// fileIndentOf measures how content indents, from its first lines.
func fileIndentOf(content string) fileIndent {
	const maxLines = 4000
	lines := strings.SplitN(content, "\n", maxLines+1)
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	fi := fileIndent{unit: indentStep(lines)}
	fi.tabbed, fi.spaced = indentStarts(lines)
	fi.tabs = fi.tabbed > fi.spaced
	return fi
}

// indentStarts counts the non-blank lines that start with a tab, and with
// a space.
func indentStarts(lines []string) (tabbed, spaced int) {
	for _, l := range lines {
		switch {
		case isBlank(l):
		case strings.HasPrefix(l, "\t"):
			tabbed++
		case strings.HasPrefix(l, " "):
			spaced++
		}
	}
	return tabbed, spaced
}

// convert writes the indentation of a line the model adds with the
// characters most lines around it indent with, where the call showed the
// model writing the other ones the way this line is written (a stray tab
// line in a file indented with spaces does not make it a file of tabs; a
// model seen writing tabs for spaces did not slip on a line of spaces): a
// tab is tabWidth spaces, spaces are tabs, one per unit of the model's.
func (f fileIndent) convert(ind string, modelUnit int, seen indentSwap) string {
	switch {
	case ind == "":
		return ind
	case f.spaced > f.tabbed && strings.Contains(ind, "\t") && seen&tabsForSpaces != 0:
		return strings.Repeat(" ", indentWidth(ind))
	case f.tabbed > f.spaced && !strings.Contains(ind, "\t") && seen&spacesForTabs != 0:
		if modelUnit <= 0 {
			modelUnit = tabWidth
		}
		return strings.Repeat("\t", len(ind)/modelUnit) + strings.Repeat(" ", len(ind)%modelUnit)
	}
	return ind
}

// indentStep is the most common increase of indentation from one
// non-blank line to the next, in columns: the text's indentation unit.
// A tie goes to the smaller step; 0 when nothing is indented deeper.
func indentStep(lines []string) int {
	counts := map[int]int{}
	prev := -1
	for _, l := range lines {
		if isBlank(l) {
			continue
		}
		w := indentWidth(leadingWS(strings.TrimSuffix(l, "\r")))
		if prev >= 0 && w > prev {
			counts[w-prev]++
		}
		prev = w
	}
	best, n := 0, 0
	for step, c := range counts {
		if c > n || (c == n && step < best) {
			best, n = step, c
		}
	}
	return best
}

func indentWidth(ind string) int {
	w := 0
	for _, c := range ind {
		if c == '\t' {
			w += tabWidth
		} else {
			w++
		}
	}
	return w
}

func renderIndent(w int, tabs bool) string {
	if !tabs {
		return strings.Repeat(" ", w)
	}
	return strings.Repeat("\t", w/tabWidth) + strings.Repeat(" ", w%tabWidth)
}

// newInFileIndent reports whether new_string is already written in the
// file's indentation although old_string is not (the model slipped in
// old_string only): then new_string is not re-indented. The evidence is
// the lines new keeps from old (the same text once indentation and other
// drift are ignored) and the lines it rewrites (see pairLines): each is
// indented like old's line or like the file's, and all must agree.
// Without any, the indentation characters decide.
func newInFileIndent(old, region, repl []string) bool {
	ok, nk := lineKeys(old), lineKeys(repl)
	votesOld, votesFile := 0, 0
	vote := func(i, j int) {
		o, f, n := leadingWS(old[i]), leadingWS(region[i]), leadingWS(repl[j])
		switch {
		case isBlank(old[i]) || isBlank(repl[j]) || o == f:
		case n == o:
			votesOld++
		case n == f:
			votesFile++
		}
	}
	walkScript(lcs.DiffLines(ok, nk), len(ok), len(nk), vote, func(d lcs.Diff) {
		for j, i := range pairLines(old[d.Start:d.End], repl[d.ReplStart:d.ReplEnd]) {
			vote(d.Start+i, d.ReplStart+j)
		}
	})
	if votesFile+votesOld > 0 {
		// Unanimous only: lines the change itself re-indents can happen
		// to land where the file's are.
		return votesOld == 0
	}
	o, f, n := indentChars(old), indentChars(region), indentChars(repl)
	return n != 0 && n == f && n != o
}

// indentChars says which characters lines indent with: 1 spaces only,
// 2 tabs only, 3 both, 0 none.
func indentChars(lines []string) int {
	c := 0
	for _, l := range lines {
		if isBlank(l) {
			continue
		}
		ind := leadingWS(l)
		if strings.Contains(ind, " ") {
			c |= 1
		}
		if strings.Contains(ind, "\t") {
			c |= 2
		}
	}
	return c
}
