package undo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/session"
)

// Restore puts each entry's path back as it was recorded: content and mode
// of files (written atomically), targets of symbolic links, deleted
// directories recreated, and what the turn created removed (a created
// directory only when it is empty again). It goes on past a path it cannot
// restore and describes it in problems; err is only a cancelled ctx.
// restored and problems name paths relative to workspace, directories with a
// trailing slash.
//
// Paths inside the workspace are restored through an os.Root of it, so a
// symlink planted since the capture (a directory swapped for a link to
// home) makes the restore of that path fail instead of writing outside.
func Restore(ctx context.Context, entries []session.UndoEntry, workspace string) (restored, problems []string, err error) {
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return nil, nil, fmt.Errorf("undo: workspace %s: %w", workspace, err)
	}
	defer root.Close()
	r := &restorer{workspace: workspace, fs: place{root: root, ws: workspace}}
	g := group(entries)
	// What the turn created goes first, files before their directories, so a
	// path the turn turned from a file into a directory (or back) is free for
	// what was there. Deleted directories come back before the files in them;
	// their modes last, so a read-only directory can be filled first.
	for _, e := range g.createdFiles {
		r.file(e)
	}
	for _, e := range g.createdDirs {
		r.removeDir(e)
	}
	for _, e := range g.dirs {
		r.recreateDir(e)
	}
	for _, e := range g.files {
		if err := ctx.Err(); err != nil {
			return r.restored, r.problems, err
		}
		r.file(e)
	}
	for _, e := range g.dirs {
		r.chmodDir(e)
	}
	return r.restored, r.problems, nil
}

// groups are a snapshot's entries in the order Restore handles them.
type groups struct {
	createdFiles, createdDirs []session.UndoEntry // innermost directories first
	dirs, files               []session.UndoEntry // outermost directories first
}

func group(entries []session.UndoEntry) groups {
	var g groups
	for _, e := range entries {
		dir := e.Mode.IsDir() && e.Skipped == ""
		switch {
		case !e.Existed && dir:
			g.createdDirs = append(g.createdDirs, e)
		case !e.Existed:
			g.createdFiles = append(g.createdFiles, e)
		case dir:
			g.dirs = append(g.dirs, e)
		default:
			g.files = append(g.files, e)
		}
	}
	byLen := func(a, b session.UndoEntry) int { return len(a.Path) - len(b.Path) }
	slices.SortStableFunc(g.dirs, byLen)
	slices.SortStableFunc(g.createdDirs, func(a, b session.UndoEntry) int { return byLen(b, a) })
	return g
}

type restorer struct {
	workspace          string
	fs                 place
	restored, problems []string
	made               map[string]bool // directories Restore recreated
}

func (r *restorer) rel(abs string, dir bool) string {
	rel, err := filepath.Rel(r.workspace, abs)
	if err != nil {
		rel = abs
	}
	if dir {
		rel += "/"
	}
	return rel
}

func (r *restorer) ok(e session.UndoEntry) {
	r.restored = append(r.restored, r.rel(e.Path, e.Mode.IsDir()))
}

func (r *restorer) fail(e session.UndoEntry, why string) {
	r.problems = append(r.problems, r.rel(e.Path, e.Mode.IsDir())+": "+why)
}

func (r *restorer) recreateDir(e session.UndoEntry) {
	fi, err := r.fs.lstat(e.Path)
	if err == nil && fi.IsDir() {
		return // still there: nothing to restore
	}
	if err := r.fs.mkdirAll(e.Path); err != nil {
		r.fail(e, err.Error())
		return
	}
	if r.made == nil {
		r.made = map[string]bool{}
	}
	r.made[e.Path] = true
	r.ok(e)
}

func (r *restorer) chmodDir(e session.UndoEntry) {
	if r.made[e.Path] {
		if err := r.fs.chmod(e.Path, e.Mode&^fs.ModeType); err != nil {
			r.fail(e, err.Error())
		}
	}
}

// removeDir removes a directory the turn created, if nothing is left in it
// (a file the turn did not capture, such as an ignored build output, keeps it).
func (r *restorer) removeDir(e session.UndoEntry) {
	err := r.fs.remove(e.Path)
	switch {
	case err == nil:
		r.ok(e)
	case errors.Is(err, fs.ErrNotExist):
	default:
		if fi, serr := r.fs.lstat(e.Path); serr == nil && fi.IsDir() {
			r.fail(e, "created by the turn but not empty; kept")
		} else {
			r.fail(e, err.Error())
		}
	}
}

func (r *restorer) file(e session.UndoEntry) {
	var err error
	switch {
	case e.Skipped != "":
		r.fail(e, "not restored: "+e.Skipped)
		return
	case !e.Existed:
		err = r.fs.removeFile(e.Path)
	case e.Mode&fs.ModeSymlink != 0:
		err = r.fs.replaceWith(e.Path, func(tmp string) error { return r.fs.symlink(string(e.Content), tmp) })
	default:
		err = r.fs.replaceWith(e.Path, func(tmp string) error { return r.fs.writeNew(tmp, e.Content, e.Mode&^fs.ModeType) })
	}
	if err != nil {
		r.fail(e, err.Error())
		return
	}
	r.ok(e)
}

// removeFile removes a file the turn created; one already gone is fine.
func (p place) removeFile(path string) error {
	fi, err := p.lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil && fi.IsDir() {
		return errors.New("created by the turn as a file, now a directory; kept")
	}
	if err := p.remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// replaceWith makes a new file at a temporary name beside path with mk and
// renames it over path, so path is never seen half-written. Missing parent
// directories are created.
func (p place) replaceWith(path string, mk func(tmp string) error) error {
	dir := filepath.Dir(path)
	if err := p.mkdirAll(dir); err != nil {
		return err
	}
	// A directory where the file was must have come after the capture; an
	// empty one (its files undone already) gives way, a full one is kept.
	if fi, err := p.lstat(path); err == nil && fi.IsDir() {
		if p.remove(path) != nil {
			return errors.New("is now a directory that is not empty; kept")
		}
	}
	for i := 0; ; i++ {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.undo-%d-%d", filepath.Base(path), os.Getpid(), i))
		err := mk(tmp)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return err
		}
		if err := p.rename(tmp, path); err != nil {
			_ = p.remove(tmp)
			return err
		}
		return nil
	}
}

// writeNew creates tmp (which must not exist) with data and mode, synced.
func (p place) writeNew(tmp string, data []byte, mode fs.FileMode) (err error) {
	f, err := p.openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = p.remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	// Chmod, unlike the open mode, is not narrowed by the umask.
	if err = f.Chmod(mode); err != nil {
		return err
	}
	return f.Sync()
}

// place does file operations on absolute paths: through the workspace's
// root for paths inside it (no resolution may leave it), directly for the
// paths outside a person approved when they were changed.
type place struct {
	root *os.Root
	ws   string
}

func (p place) inside(abs string) (string, bool) {
	rel, err := filepath.Rel(p.ws, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

func (p place) lstat(abs string) (fs.FileInfo, error) {
	if rel, ok := p.inside(abs); ok {
		return p.root.Lstat(rel)
	}
	return os.Lstat(abs)
}

func (p place) mkdirAll(abs string) error {
	if rel, ok := p.inside(abs); ok {
		return p.root.MkdirAll(rel, 0o755)
	}
	return os.MkdirAll(abs, 0o755)
}

func (p place) chmod(abs string, mode fs.FileMode) error {
	if rel, ok := p.inside(abs); ok {
		return p.root.Chmod(rel, mode)
	}
	return os.Chmod(abs, mode)
}

func (p place) remove(abs string) error {
	if rel, ok := p.inside(abs); ok {
		return p.root.Remove(rel)
	}
	return os.Remove(abs)
}

func (p place) symlink(target, abs string) error {
	if rel, ok := p.inside(abs); ok {
		return p.root.Symlink(target, rel)
	}
	return os.Symlink(target, abs)
}

func (p place) openFile(abs string, flag int, perm fs.FileMode) (*os.File, error) {
	if rel, ok := p.inside(abs); ok {
		return p.root.OpenFile(rel, flag, perm)
	}
	return os.OpenFile(abs, flag, perm)
}

func (p place) rename(from, to string) error {
	rf, ok1 := p.inside(from)
	rt, ok2 := p.inside(to)
	if ok1 && ok2 {
		return p.root.Rename(rf, rt)
	}
	return os.Rename(from, to)
}
