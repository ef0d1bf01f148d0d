package shell

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Checks that look at how commands combine: a download piped or
// substituted into an interpreter, and fork bombs.

// readsProgramFromStdin: an interpreter with no script and no -c/-e/-m
// program runs whatever arrives on stdin.
func readsProgramFromStdin(ws []word) bool {
	for _, w := range ws[1:] {
		switch {
		case !w.known:
			return false
		case w.text == "-":
			return true
		case strings.HasPrefix(w.text, "-"):
			if slices.Contains([]string{"-c", "-m", "-e", "-E", "--eval", "-r", "-p", "--print"}, w.text) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// checkPipe: "curl … | sh" runs a downloaded program, and "echo … |
// base64 -d | sh" one decoded at run time: any shell or interpreter reading
// its program from a pipe runs code the analysis cannot see.
func (a *analyzer) checkPipe(b *syntax.BinaryCmd) {
	if !a.containsStdinInterp(b.Y) {
		return
	}
	if a.containsDownloader(b.X) {
		a.reason("pipes a download into an interpreter (" + printNode(b) + ")")
		return
	}
	a.reason("pipes text into an interpreter, which runs a program only known at run time (" + printNode(b) + ")")
}

// checkSubstInterp: "sh <(curl …)", "bash -c "$(wget …)"", "eval "$(curl …)"".
func (a *analyzer) checkSubstInterp(ce *syntax.CallExpr) {
	interp := false
	for _, w := range ce.Args {
		if v := a.word(w); v.known && runsCode(cmdName(v.text)) {
			interp = true
		}
	}
	if !interp {
		return
	}
	found := false
	for _, w := range ce.Args {
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				found = found || a.containsDownloader(n)
				return false
			}
			return !found
		})
	}
	if found {
		a.reason("runs a downloaded program (" + printNode(ce) + ")")
	}
}

func (a *analyzer) containsDownloader(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok {
			for _, w := range ce.Args {
				if v := a.word(w); v.known && downloaders[cmdName(v.text)] {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

func (a *analyzer) containsStdinInterp(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && a.info[ce] != nil && a.info[ce].stdinInterp {
			found = true
		}
		return !found
	})
	return found
}

// checkForkBomb: a function that starts copies of itself in a pipeline or
// in the background multiplies until the machine stalls.
func (a *analyzer) checkForkBomb(fd *syntax.FuncDecl) {
	if fd.Name == nil || fd.Body == nil {
		return
	}
	name := fd.Name.Value
	calls, background := 0, false
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			background = background || (n.Background && callsOf(n, name) > 0)
		case *syntax.CallExpr:
			if len(n.Args) > 0 && n.Args[0].Lit() == name {
				calls++
			}
		}
		return true
	})
	if calls >= 2 || (calls >= 1 && background) {
		a.reason(fmt.Sprintf("fork bomb: function %s starts copies of itself", name))
	}
}

func callsOf(n syntax.Node, name string) int {
	count := 0
	syntax.Walk(n, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 && ce.Args[0].Lit() == name {
			count++
		}
		return true
	})
	return count
}
