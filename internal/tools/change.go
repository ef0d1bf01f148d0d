package tools

import (
	"slices"

	"github.com/coder-agent/coder/internal/edit"
)

// change is the new content a write or edit call computed for its file.
// Preview keeps it on the call's arguments, and Run, after the approval,
// writes it when the file still holds the text the preview read: the
// match and the diff are computed once. (Run reads and checks the file
// again all the same: a file changed since goes through the checks and the
// computation anew, as without a preview.)
type change struct {
	abs     string
	existed bool
	before  string
	after   string
	// describe words the model's message from the diff's line counts.
	describe func(added, removed int) string
	diffed   *edit.Diff
}

// still reports whether ch, computed earlier, is the change of tg now that
// it holds before (existed: it is an existing file).
func (ch *change) still(tg target, before string, existed bool) bool {
	return ch != nil && ch.abs == tg.Abs && ch.existed == existed && ch.before == before
}

// diff is ch's unified diff, headed with rel, computed on first use.
func (ch *change) diff(rel string) edit.Diff {
	if ch.diffed == nil {
		d := edit.DiffFile(rel, ch.before, ch.after)
		ch.diffed = &d
	}
	return *ch.diffed
}

// appliedOp is an Update's hunks applied to the text in.
type appliedOp struct {
	in, out string
	notes   []string
}

// apply is a.ops[i] applied to content, reused from an earlier run of the
// call (its Preview) when content is the same text.
func (a *patchArgs) apply(i int, content string) (string, []string, error) {
	if a.applied == nil {
		a.applied = make([]*appliedOp, len(a.ops))
	}
	if p := a.applied[i]; p != nil && p.in == content {
		return p.out, slices.Clip(p.notes), nil
	}
	out, notes, err := a.ops[i].Apply(content)
	if err == nil {
		a.applied[i] = &appliedOp{in: content, out: out, notes: notes}
	}
	return out, slices.Clip(notes), err
}

// diffedChange is the diff of a patch's file change.
type diffedChange struct {
	from, to, before, after string
	d                       edit.Diff
}

// diff is c's unified diff, reused from an earlier run of the call (its
// Preview) when c is the same change.
func (a *patchArgs) diff(c *fileChange) edit.Diff {
	from, to := "a/"+c.src.Rel, "b/"+c.dst.Rel
	if a.diffs == nil {
		a.diffs = make([]*diffedChange, len(a.ops))
	}
	if p := a.diffs[c.op]; p != nil && p.from == from && p.to == to && p.before == c.before && p.after == c.after {
		return p.d
	}
	d := edit.DiffNames(from, to, c.before, c.after)
	if d.Text == "" && c.moved() {
		d.Text = "--- " + from + "\n+++ " + to + "\n"
	}
	a.diffs[c.op] = &diffedChange{from: from, to: to, before: c.before, after: c.after, d: d}
	return d
}
