package shell

import (
	"path/filepath"
	"strings"
	"sync"
)

// find runs commands (-exec, -execdir, -ok, -okdir) and deletes (-delete);
// both are checked like commands of their own.

var findActions = sync.OnceValue(func() map[string]bool {
	return set("-exec", "-execdir", "-ok", "-okdir")
})
var findWriters = sync.OnceValue(func() map[string]bool {
	return set("-fprint", "-fprint0", "-fprintf", "-fls")
})

// findNonFilters are primaries that do not narrow what find matches: with
// only these, "-delete" or "-exec rm -rf {}" hits the whole tree.
var findNonFilters = sync.OnceValue(func() map[string]bool {
	return set("-delete", "-depth", "-d", "-xdev", "-mount", "-maxdepth", "-mindepth",
		"-print", "-print0", "-ignore_readdir_race", "-noleaf", "-follow", "-daystart")
})

func (a *analyzer) find(ws []word, c ctx, depth int, info *callInfo) {
	roots, expr := findRoots(ws)
	filtered := findFiltered(expr)
	for j := 0; j < len(expr); j++ {
		t := expr[j].text
		switch {
		case findActions()[t]:
			end := j + 1
			for end < len(expr) && !(expr[end].known && (expr[end].text == ";" || expr[end].text == "+")) {
				end++
			}
			a.exec(substituteFound(expr[j+1:end], roots[0], filtered), c, depth, info)
			j = end
		case t == "-delete":
			for _, r := range roots {
				a.writeTarget(r)
				if !filtered {
					a.recursiveDelete(r)
				}
			}
		case findWriters()[t] && j+1 < len(expr):
			a.writeTarget(expr[j+1])
			j++
		}
	}
}

// findRoots splits find's argv into its starting points and expression.
func findRoots(ws []word) (roots, expr []word) {
	i := 1
	for i < len(ws) && ws[i].known && (ws[i].text == "-H" || ws[i].text == "-L" ||
		ws[i].text == "-P" || ws[i].text == "-D" || strings.HasPrefix(ws[i].text, "-O")) {
		if ws[i].text == "-D" {
			i++
		}
		i++
	}
	for i < len(ws) && !isFindExpr(ws[i]) {
		roots = append(roots, ws[i])
		i++
	}
	if len(roots) == 0 {
		roots = []word{knownWord(".")}
	}
	return roots, ws[min(i, len(ws)):]
}

func isFindExpr(w word) bool {
	if !w.known {
		return false
	}
	t := w.text
	return (len(t) > 1 && t[0] == '-') || t == "(" || t == "!" || t == ")" || t == ","
}

// findFiltered reports a test (-name, -type, …) outside -exec segments.
func findFiltered(expr []word) bool {
	for j := 0; j < len(expr); j++ {
		t := expr[j].text
		switch {
		case findActions()[t]:
			for j < len(expr) && expr[j].text != ";" && expr[j].text != "+" {
				j++
			}
		case t == "-maxdepth" || t == "-mindepth":
			j++
		case strings.HasPrefix(t, "-") && !findNonFilters()[t]:
			return true
		}
	}
	return false
}

// substituteFound replaces {} in an -exec command. Without a filter the
// first thing found is the root itself; with one, something below it.
func substituteFound(ws []word, root word, filtered bool) []word {
	out := make([]word, len(ws))
	for i, w := range ws {
		out[i] = w
		if !w.known || !strings.Contains(w.text, "{}") {
			continue
		}
		switch {
		case !root.known:
			out[i] = unknownWord(w.text)
		case filtered:
			out[i].path = strings.ReplaceAll(w.path, "{}", filepath.Join(root.path, "{}"))
		default:
			out[i] = word{text: strings.ReplaceAll(w.text, "{}", root.text),
				path: strings.ReplaceAll(w.path, "{}", root.path), known: true}
		}
	}
	return out
}
