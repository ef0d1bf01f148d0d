package tools

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/coder-agent/coder/internal/edit"
	"github.com/coder-agent/coder/internal/plural"
)

// A patch is all or nothing, across a crash too. First every new content is
// written to a temporary file beside its target (nothing visible changes,
// and a failure — a full disk — removes them and changes nothing); then a
// journal naming every step is made durable and marked committed; then the
// temporaries are renamed into place and deletions done; then the journal
// goes. A process killed before the commit mark leaves only temporaries,
// which RecoverPatches removes; killed after it, RecoverPatches finishes
// the renames. Either way no temporary file remains.

// commit writes a planned patch: the BeforeChange hook for every path,
// then the staged, journaled commit. A failure after the commit point (a
// rename refused) puts the files already changed back from their in-memory
// originals.
func (t patchTool) commit(a *patchArgs, changes []*fileChange) Result {
	if t.g.dry {
		return patchResult(a, changes)
	}
	var tgs []target
	var reads []fileRead
	for _, c := range changes {
		tgs, reads = append(tgs, c.src), append(reads, c.read)
		if c.moved() {
			tgs, reads = append(tgs, c.dst), append(reads, fileRead{})
		}
	}
	if fail := t.g.notify(tgs, reads); fail != nil {
		return *fail
	}
	if t.g.files != nil {
		return t.commitThrough(a, changes)
	}
	planTemps(changes)
	j, err := t.journal.begin(t.ws.Root, changes)
	if err != nil {
		return Failure("patch: cannot record the patch in the journal (%v); nothing was changed", bareError(err))
	}
	if err := t.stage(changes); err != nil {
		j.done()
		return Failure("patch: %v; nothing was changed", err)
	}
	if err := j.commit(); err != nil {
		t.unstage(changes)
		j.done()
		return Failure("patch: cannot record the patch in the journal (%v); nothing was changed", bareError(err))
	}
	defer closeDirs(changes)
	for i, c := range changes {
		if err := t.apply(c); err != nil {
			t.unstage(changes[i:])
			msg := t.rollback(changes[:i])
			j.done()
			return Failure("patch: writing %s failed: %v; %s", c.dst.Rel, bareError(err), msg)
		}
	}
	j.done()
	t.record(changes)
	return patchResult(a, changes)
}

// commitThrough writes a planned patch through an editor's Files (ACP),
// file by file, putting back the files already written if one fails. An
// editor's buffers have no journal: a crash midway can leave part of it.
func (t patchTool) commitThrough(a *patchArgs, changes []*fileChange) Result {
	for i, c := range changes {
		var err error
		if c.kind == edit.DeleteFile {
			err = t.ws.remove(c.src)
		} else if err = t.g.write(c.dst, []byte(c.after), c.mode); err == nil && c.moved() {
			if err = t.ws.remove(c.src); err != nil {
				_ = t.ws.remove(c.dst)
			}
		}
		if err != nil {
			return Failure("patch: writing %s failed: %v; %s", c.dst.Rel, bareError(err), t.rollback(changes[:i]))
		}
	}
	t.record(changes)
	return patchResult(a, changes)
}

// record tells the read tracker what the files hold now.
func (t patchTool) record(changes []*fileChange) {
	for _, c := range changes {
		switch {
		case c.kind == edit.DeleteFile:
			t.g.tracker.Forget(c.src.Abs)
		case c.moved():
			t.g.tracker.Forget(c.src.Abs)
			t.g.tracker.Record(c.dst.Abs, []byte(c.after))
		default:
			t.g.tracker.Record(c.dst.Abs, []byte(c.after))
		}
	}
}

// planTemps names each change's temporary file, beside its target.
func planTemps(changes []*fileChange) {
	for _, c := range changes {
		if c.kind == edit.DeleteFile {
			continue
		}
		name := tempName(filepath.Base(c.dst.Abs))
		c.tmp = target{Abs: filepath.Join(filepath.Dir(c.dst.Abs), name), Inside: c.dst.Inside}
		if c.dst.Inside {
			c.tmp.Rel = pathJoinSlash(c.dst.Rel, name)
		}
	}
}

// pathJoinSlash is rel's directory joined with name, slash-separated.
func pathJoinSlash(rel, name string) string {
	return filepath.ToSlash(filepath.Join(filepath.Dir(filepath.FromSlash(rel)), name))
}

// stage writes every new content to its temporary file, in the target's
// directory opened once (Workspace.parentOf), so the rename that follows
// acts on that same directory; on failure the ones written are removed.
func (t patchTool) stage(changes []*fileChange) error {
	for i, c := range changes {
		if c.kind == edit.DeleteFile {
			continue
		}
		dir, _, err := t.ws.parentOf(c.dst)
		if err == nil {
			c.dir = dir
			err = t.writeTemp(dir, filepath.Base(c.tmp.Abs), []byte(c.after), c.mode)
		}
		if err != nil {
			c.tmp = target{}
			t.unstage(changes[:i+1])
			return fmt.Errorf("writing %s failed: %v", c.dst.Rel, bareError(err))
		}
	}
	return nil
}

// unstage removes the staged files not yet renamed into place.
func (t patchTool) unstage(changes []*fileChange) {
	for _, c := range changes {
		if c.tmp.Abs != "" && c.dir != nil {
			_ = c.dir.Remove(filepath.Base(c.tmp.Abs))
		}
		c.tmp = target{}
	}
	closeDirs(changes)
}

func closeDirs(changes []*fileChange) {
	for _, c := range changes {
		if c.dir != nil {
			_ = c.dir.Close()
			c.dir = nil
		}
	}
}

// apply makes one staged change visible; a move that cannot remove its
// source removes its new copy again, so it is all or nothing too.
func (t patchTool) apply(c *fileChange) error {
	if c.kind == edit.DeleteFile {
		return t.ws.remove(c.src)
	}
	if err := c.dir.Rename(filepath.Base(c.tmp.Abs), filepath.Base(c.dst.Abs)); err != nil {
		return err
	}
	c.tmp = target{}
	if c.moved() {
		if err := t.ws.remove(c.src); err != nil {
			_ = t.ws.remove(c.dst)
			return err
		}
	}
	return nil
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
		case c.kind == edit.AddFile:
			err = t.ws.remove(c.dst)
		case c.moved():
			if err = t.g.write(c.src, []byte(c.before), c.mode); err == nil {
				err = t.ws.remove(c.dst)
			}
		default:
			err = t.g.write(c.src, []byte(c.before), c.mode)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s (%v)", c.src.Rel, bareError(err)))
		}
	}
	if len(failed) > 0 {
		return "restoring the files already written failed for " + strings.Join(failed, ", ") + ": check them"
	}
	return fmt.Sprintf("the %s already written were restored (best effort; new directories stay)", plural.Of(len(done), "file"))
}

// patchResult is the combined diff and a line per file: A/M/D/R path.
func patchResult(a *patchArgs, changes []*fileChange) Result {
	var diffs strings.Builder
	var lines, changed []string
	added, removed := 0, 0
	for _, c := range changes {
		d := a.diff(c)
		diffs.WriteString(d.Text)
		added, removed = added+d.Added, removed+d.Removed
		line := fmt.Sprintf("%s %s (+%d -%d)", c.letter(), c.src.Rel, d.Added, d.Removed)
		if c.moved() {
			line = fmt.Sprintf("R %s -> %s (+%d -%d)", c.src.Rel, c.dst.Rel, d.Added, d.Removed)
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
		Content: fmt.Sprintf("patched %s:\n%s", plural.Of(len(changes), "file"), strings.Join(lines, "\n")),
		Summary: fmt.Sprintf("+%d -%d in %s", added, removed, plural.Of(len(changes), "file")),
		Diff:    diffs.String(),
		Changed: changed,
	}
}

func (c *fileChange) letter() string {
	return [...]string{"A", "D", "M"}[c.kind]
}

// fileMode is the mode a rewrite or restore of tg keeps.
func (w *Workspace) fileMode(tg target) fs.FileMode {
	fi, err := w.stat(tg)
	if err != nil {
		return newFileMode
	}
	return fi.Mode() & keptModeBits
}
