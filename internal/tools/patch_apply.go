package tools

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// commit writes a planned patch: the BeforeChange hook for every path
// first, then the files one by one. Each file is written atomically; if one
// fails, the files already written are put back from their in-memory
// originals (best effort: the disk that refused one write may refuse more).
func (t patchTool) commit(changes []*fileChange) Result {
	if t.g.dry {
		return patchResult(changes)
	}
	var tgs []target
	for _, c := range changes {
		tgs = append(tgs, c.src)
		if c.moved() {
			tgs = append(tgs, c.dst)
		}
	}
	if fail := t.g.notify(tgs...); fail != nil {
		return *fail
	}
	for i, c := range changes {
		if err := t.apply(c); err != nil {
			return Failure("patch: writing %s failed: %v; %s", c.dst.Rel, bareError(err), t.rollback(changes[:i]))
		}
	}
	for _, c := range changes {
		switch {
		case c.kind == patchDelete:
			t.g.tracker.Forget(c.src.Abs)
		case c.moved():
			t.g.tracker.Forget(c.src.Abs)
			t.g.tracker.Record(c.dst.Abs, []byte(c.after))
		default:
			t.g.tracker.Record(c.dst.Abs, []byte(c.after))
		}
	}
	return patchResult(changes)
}

// apply writes one change; a move that cannot remove its source removes
// its new copy again, so it is all or nothing too.
func (t patchTool) apply(c *fileChange) error {
	switch {
	case c.kind == patchDelete:
		return os.Remove(c.src.Abs)
	case c.moved():
		if err := t.write(c.dst.Abs, []byte(c.after), c.mode); err != nil {
			return err
		}
		if err := os.Remove(c.src.Abs); err != nil {
			_ = os.Remove(c.dst.Abs)
			return err
		}
		return nil
	}
	return t.write(c.dst.Abs, []byte(c.after), c.mode)
}

// rollback undoes the changes already applied, newest first, and says how
// that went.
func (t patchTool) rollback(done []*fileChange) string {
	if len(done) == 0 {
		return "nothing was changed"
	}
	var failed []string
	for i := len(done) - 1; i >= 0; i-- {
		c := done[i]
		var err error
		switch {
		case c.kind == patchAdd:
			err = os.Remove(c.dst.Abs)
		case c.moved():
			if err = t.write(c.src.Abs, []byte(c.before), c.mode); err == nil {
				err = os.Remove(c.dst.Abs)
			}
		default:
			err = t.write(c.src.Abs, []byte(c.before), c.mode)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", c.src.Rel, bareError(err)))
		}
	}
	if len(failed) > 0 {
		return "restoring the files already written failed for " + strings.Join(failed, ", ") + ": check them"
	}
	return fmt.Sprintf("the %s already written were restored (best effort; new directories stay)", plural(len(done), "file"))
}

// patchResult is the combined diff and a line per file: A/M/D/R path.
func patchResult(changes []*fileChange) Result {
	var diffs strings.Builder
	var lines, changed []string
	added, removed := 0, 0
	for _, c := range changes {
		d := c.diff()
		diffs.WriteString(d)
		a, r := diffStat(d)
		added, removed = added+a, removed+r
		line := fmt.Sprintf("%s %s (+%d -%d)", c.letter(), c.src.Rel, a, r)
		if c.moved() {
			line = fmt.Sprintf("R %s -> %s (+%d -%d)", c.src.Rel, c.dst.Rel, a, r)
		}
		if len(c.notes) > 0 {
			line += "; " + strings.Join(c.notes, "; ")
		}
		lines = append(lines, line)
		changed = append(changed, c.src.Rel)
		if c.moved() {
			changed = append(changed, c.dst.Rel)
		}
	}
	return Result{
		OK:      true,
		Content: fmt.Sprintf("patched %s:\n%s", plural(len(changes), "file"), strings.Join(lines, "\n")),
		Summary: fmt.Sprintf("+%d -%d in %s", added, removed, plural(len(changes), "file")),
		Diff:    diffs.String(),
		Changed: changed,
	}
}

func (c *fileChange) letter() string {
	return [...]string{"A", "D", "M"}[c.kind]
}

func (c *fileChange) diff() string {
	if !c.moved() {
		return unifiedDiff(c.src.Rel, c.before, c.after)
	}
	from, to := "a/"+c.src.Rel, "b/"+c.dst.Rel
	if d := unifiedDiffNames(from, to, c.before, c.after); d != "" {
		return d
	}
	return "--- " + from + "\n+++ " + to + "\n"
}

// fileMode is the mode a rewrite or restore of abs keeps.
func fileMode(abs string) fs.FileMode {
	fi, err := os.Stat(abs)
	if err != nil {
		return newFileMode
	}
	return fi.Mode() & keptModeBits
}
