package edit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"

	"github.com/coder-agent/coder/internal/plural"
)

// unfaithful is the wrong-change guard, run on every match before anything
// is written: the replacement of content[c.start:c.end] by repl must change
// no more lines of the file than the model's own old and new texts change,
// and must read like the model's new text once the forgiven drift is
// normalised away. It returns why not, or "".
//
// Whole lines are compared: the region is widened to the lines it touches,
// on the file's side and, with the same surrounding text, on the model's.
// script, when given, is the model's own account of its change (a patch
// hunk's - and + lines): a line it removes and adds again unchanged counts
// as changed, as it says (a line diff of its texts would not count it).
func unfaithful(content string, c candidate, repl, old, new string, script []lcs.Diff) string {
	ls := lineStartBefore(content, c.start)
	le := c.end
	if (le > 0 && content[le-1] != '\n') || le == ls {
		if nl := strings.IndexByte(content[le:], '\n'); nl >= 0 {
			le += nl + 1
		} else {
			le = len(content)
		}
	}
	pre, post := content[ls:c.start], content[c.end:le]
	before := splitKeepEOL(content[ls:le])
	after := splitKeepEOL(pre + repl + post)
	fileDel, fileIns := lineChanges(before, after)
	modelOld := splitKeepEOL(normaliseEOL(pre + old + post))
	modelNew := splitKeepEOL(normaliseEOL(pre + new + post))
	modelDel, modelIns := lineChanges(modelOld, modelNew)
	if script != nil && pre == "" && post == "" {
		d, i := scriptChanges(script)
		modelDel, modelIns = max(modelDel, d), max(modelIns, i)
	}
	if fileDel > modelDel || fileIns > modelIns {
		return fmt.Sprintf("the result would change %s of the file where the edit changes %s",
			plural.Of(max(fileDel, fileIns), "line"), plural.Of(max(modelDel, modelIns), "line"))
	}
	if !slices.Equal(lineKeys(splitLines(pre+repl+post)), lineKeys(splitLines(pre+new+post))) {
		return "the result would not read like the new text"
	}
	return ""
}

// lineChanges counts the lines a line diff of a and b removes and adds.
func lineChanges(a, b []string) (del, ins int) {
	return scriptChanges(lcs.DiffLines(a, b))
}

// scriptChanges counts the lines a script removes and adds.
func scriptChanges(script []lcs.Diff) (del, ins int) {
	for _, d := range script {
		del += d.End - d.Start
		ins += d.ReplEnd - d.ReplStart
	}
	return del, ins
}

// splitKeepEOL splits s into lines that keep their line breaks.
func splitKeepEOL(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
