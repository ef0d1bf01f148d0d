package tools

import "strings"

// tabWidth is how many columns a tab counts for when indentation written
// with spaces is converted to a file indented with tabs, or back.
const tabWidth = 4

// indentPair is how the model indented a line of old_string and how the file
// really indents it.
type indentPair struct{ model, file string }

// reindent rewrites the indentation of repl, written against the model's
// old text, to the file's: the model re-indented the block (or used spaces
// for tabs) and its replacement carries the same drift. old and region are
// the matched texts (LF line endings, same number of lines). firstAtStart
// says whether the first line of the region starts a line; if not, the first
// line of repl is left alone.
func reindent(repl, old, region string, firstAtStart bool) (string, bool) {
	pairs := indentPairs(strings.Split(old, "\n"), strings.Split(region, "\n"), firstAtStart)
	if len(pairs) == 0 || !pairsShift(pairs) {
		return repl, false
	}
	known := map[string]string{}
	for _, p := range pairs {
		if _, ok := known[p.model]; !ok {
			known[p.model] = p.file
		}
	}
	useTabs := fileUsesTabs(pairs)
	unit := indentUnit(old + "\n" + repl)
	lines := strings.Split(repl, "\n")
	for i, l := range lines {
		if (i == 0 && !firstAtStart) || isBlank(l) {
			continue
		}
		ind := leadingWS(l)
		to, ok := known[ind]
		if !ok {
			to = renderIndent(mapWidth(indentWidth(ind), pairs, unit, useTabs), useTabs)
		}
		lines[i] = to + l[len(ind):]
	}
	out := strings.Join(lines, "\n")
	return out, out != repl
}

// indentPairs pairs the indentation of the model's lines with the file's.
func indentPairs(old, region []string, firstAtStart bool) []indentPair {
	if len(old) != len(region) {
		return nil
	}
	var pairs []indentPair
	for i := range old {
		if (i == 0 && !firstAtStart) || isBlank(old[i]) {
			continue
		}
		pairs = append(pairs, indentPair{leadingWS(old[i]), leadingWS(region[i])})
	}
	return pairs
}

func pairsShift(pairs []indentPair) bool {
	for _, p := range pairs {
		if p.model != p.file {
			return true
		}
	}
	return false
}

func fileUsesTabs(pairs []indentPair) bool {
	for _, p := range pairs {
		if strings.Contains(p.file, "\t") {
			return true
		}
	}
	return false
}

// mapWidth maps an indentation width the model used but the matched lines
// do not show: linearly from the first two distinct levels seen (a 4-space
// model against a 2-space file halves), else level by level from the first
// line, the model's levels being unit wide.
func mapWidth(w int, pairs []indentPair, unit int, tabs bool) int {
	m1, f1 := indentWidth(pairs[0].model), indentWidth(pairs[0].file)
	for _, p := range pairs[1:] {
		m2, f2 := indentWidth(p.model), indentWidth(p.file)
		if m2 != m1 && f2 != f1 {
			return max(f1+(w-m1)*(f2-f1)/(m2-m1), 0)
		}
	}
	if unit == 0 {
		return max(w-m1+f1, 0)
	}
	fileUnit := unit
	switch {
	case tabs:
		fileUnit = tabWidth
	case m1 > 0 && f1 > 0:
		fileUnit = max(f1*unit/m1, 1)
	}
	return max(f1+(w-m1)/unit*fileUnit+(w-m1)%unit, 0)
}

// indentUnit is the model's indentation step: the greatest common divisor
// of its indentation widths; 0 when nothing is indented.
func indentUnit(text string) int {
	g := 0
	for _, l := range strings.Split(text, "\n") {
		if w := indentWidth(leadingWS(l)); w > 0 && !isBlank(l) {
			g = gcd(g, w)
		}
	}
	return g
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
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
