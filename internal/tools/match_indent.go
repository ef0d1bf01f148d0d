package tools

import "strings"

// tabWidth is how many columns a tab counts for when indentation written
// with spaces is converted to a file indented with tabs, or back.
const tabWidth = 4

// indentPair is how the model indented a line of old_string and how the file
// really indents it.
type indentPair struct{ model, file string }

// indentMap turns the model's indentation into the file's, learnt from the
// lines of old_string and the region they matched: the model re-indented
// the block (or used spaces for tabs) and what it writes new carries the
// same drift.
type indentMap struct {
	known map[string]string // model indentation → the file's, as seen
	pairs []indentPair
	tabs  bool // the file indents with tabs
	// modelUnit and fileUnit are the indentation steps, in columns, of the
	// model's text and of the file (0: unknown).
	modelUnit, fileUnit int
}

// newIndentMap learns the map from the model's old lines and the file's
// region lines (same count). firstAtStart says whether the first line
// starts a line of the file; if not, its indentation tells nothing. ok is
// false when the model's indentation already is the file's.
func newIndentMap(old, region []string, firstAtStart bool, modelText string, file fileIndent) (indentMap, bool) {
	m := indentMap{known: map[string]string{}, tabs: file.tabs, fileUnit: file.unit}
	shift := false
	for i := range old {
		if i >= len(region) || (i == 0 && !firstAtStart) || isBlank(old[i]) {
			continue
		}
		p := indentPair{leadingWS(old[i]), leadingWS(region[i])}
		m.pairs = append(m.pairs, p)
		if _, ok := m.known[p.model]; !ok {
			m.known[p.model] = p.file
		}
		shift = shift || p.model != p.file
		m.tabs = m.tabs || strings.Contains(p.file, "\t")
	}
	if !shift {
		return indentMap{}, false
	}
	m.modelUnit = indentStep(strings.Split(modelText, "\n"))
	return m, true
}

// apply maps one indentation the model wrote to the file's.
func (m indentMap) apply(ind string) string {
	if to, ok := m.known[ind]; ok {
		return to
	}
	return renderIndent(m.mapWidth(indentWidth(ind)), m.tabs)
}

// mapWidth maps an indentation width the matched lines do not show:
// linearly through the first two distinct levels seen (a 4-space model
// against a 2-space file halves), else from the one level seen, by the
// offset the match needed, each further level of the model's being one
// level of the file's.
func (m indentMap) mapWidth(w int) int {
	m1, f1 := indentWidth(m.pairs[0].model), indentWidth(m.pairs[0].file)
	for _, p := range m.pairs[1:] {
		m2, f2 := indentWidth(p.model), indentWidth(p.file)
		if m2 != m1 && f2 != f1 {
			return max(f1+(w-m1)*(f2-f1)/(m2-m1), 0)
		}
	}
	if m.modelUnit == 0 || m.fileUnit == 0 {
		return max(f1+w-m1, 0)
	}
	return max(f1+(w-m1)/m.modelUnit*m.fileUnit+(w-m1)%m.modelUnit, 0)
}

// fileIndent is how a file indents: its step and whether with tabs.
type fileIndent struct {
	unit int
	tabs bool
}

// fileIndentOf measures how content indents, from its first lines.
func fileIndentOf(content string) fileIndent {
	const maxLines = 4000
	lines := strings.SplitN(content, "\n", maxLines+1)
	if len(lines) > maxLines {
		lines = lines[:maxLines]
	}
	tabbed, spaced := 0, 0
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "\t"):
			tabbed++
		case strings.HasPrefix(l, " ") && !isBlank(l):
			spaced++
		}
	}
	return fileIndent{unit: indentStep(lines), tabs: tabbed > spaced}
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
// old_string only): then new_string is not re-indented. Evidence, in
// order: lines of new that read exactly like a line of the region rather
// than like a line of old; then the indentation characters used.
func newInFileIndent(old, region, repl []string) bool {
	inOld, inFile := map[string]bool{}, map[string]bool{}
	for _, l := range old {
		inOld[indentKey(l)] = true
	}
	for _, l := range region {
		inFile[indentKey(l)] = true
	}
	votesOld, votesFile := 0, 0
	for _, l := range repl {
		if isBlank(l) {
			continue
		}
		k := indentKey(l)
		switch {
		case inFile[k] && !inOld[k]:
			votesFile++
		case inOld[k] && !inFile[k]:
			votesOld++
		}
	}
	if votesFile != votesOld {
		return votesFile > votesOld
	}
	o, f, n := indentChars(old), indentChars(region), indentChars(repl)
	return n != 0 && n == f && n != o
}

// indentKey is a line with its indentation kept and every other forgiven
// drift normalised away.
func indentKey(l string) string {
	return leadingWS(l) + strings.TrimSpace(buildView(l, allDrift, false).text)
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
