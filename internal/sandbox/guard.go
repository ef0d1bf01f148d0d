package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// maxGuarded bounds the bytes a Guard keeps: the protected paths are small
// (git config and hooks, coder's settings).
const maxGuarded = 16 << 20

// Guard keeps the protected paths as they were before a call, for where
// the mounts cannot: below LevelFull, and at LevelFull for a protected path
// that did not exist (a mount can only cover what exists, so a command
// could create .mcp.json). Watch before the call, Restore after it.
type Guard struct {
	workspace string
	roots     []string
	snap      map[string]guardEntry
}

type guardEntry struct {
	mode fs.FileMode
	data []byte // regular files
	link string // symlinks
}

// Watch snapshots p's protected paths (none when the workspace is
// read-only: then nothing in it may change at all).
func Watch(p Profile) (*Guard, error) {
	g := &Guard{workspace: p.Workspace, snap: map[string]guardEntry{}}
	if p.ReadOnly {
		return g, nil
	}
	g.roots = p.protected()
	total := 0
	for _, root := range g.roots {
		if g.unsafeAncestor(root) != "" {
			continue
		}
		err := g.walk(root, func(path string, e guardEntry) error {
			total += len(e.data)
			if total > maxGuarded {
				return fmt.Errorf("sandbox: protected paths hold more than %d MiB; too large to guard", maxGuarded>>20)
			}
			g.snap[path] = e
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return g, nil
}

// walk visits root and what is below it without following symlinks,
// skipping coder's own state (which coder writes during a call).
func (g *Guard) walk(root string, visit func(string, guardEntry) error) error {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if g.coderState(path) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone meanwhile
		}
		e := guardEntry{mode: fi.Mode()}
		switch {
		case fi.Mode().IsRegular():
			if e.data, err = os.ReadFile(path); err != nil {
				return err
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			if e.link, err = os.Readlink(path); err != nil {
				return err
			}
		}
		return visit(path, e)
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// coderState is coder's session store inside .coder: .coder/sessions,
// .coder/coder.db* and the patch journal, which coder itself writes while a
// command runs.
func (g *Guard) coderState(path string) bool {
	if filepath.Base(filepath.Dir(path)) != ".coder" || filepath.Dir(filepath.Dir(path)) != g.workspace {
		return false
	}
	base := filepath.Base(path)
	return base == "sessions" || base == "journal" || strings.HasPrefix(base, "coder.db")
}

// unsafeAncestor returns the first directory between the workspace and p
// that is not a real directory (a symlink could point the restore
// outside), or "".
func (g *Guard) unsafeAncestor(p string) string {
	rel, err := filepath.Rel(g.workspace, filepath.Dir(p))
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	dir := g.workspace
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." {
			continue
		}
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return ""
		}
		if err != nil || !fi.IsDir() {
			return dir
		}
	}
	return ""
}

// Accept takes path (absolute, at or below a protected path) as it is now
// into the snapshot: coder itself changed it (an approval remembered in
// .coder/config.json), so Restore must keep the change.
func (g *Guard) Accept(path string) error {
	if !slices.ContainsFunc(g.roots, func(r string) bool { return within(path, r) }) || g.unsafeAncestor(path) != "" {
		return nil
	}
	for p := range g.snap {
		if within(p, path) {
			delete(g.snap, p)
		}
	}
	return g.walk(path, func(p string, e guardEntry) error { g.snap[p] = e; return nil })
}

// AcceptAll takes every protected path as it is now into the snapshot: a
// command the person let run outside the sandbox changed them.
func (g *Guard) AcceptAll() error {
	var errs []error
	for _, root := range g.roots {
		errs = append(errs, g.Accept(root))
	}
	return errors.Join(errs...)
}

// Restore puts the protected paths back as Watch saw them: what the call
// created is removed, what it changed or deleted is written back. It
// returns one line per change, relative to the workspace, for the model
// and the person.
func (g *Guard) Restore() ([]string, error) {
	var changes []string
	var errs []error
	for _, root := range g.roots {
		if bad := g.unsafeAncestor(root); bad != "" {
			errs = append(errs, fmt.Errorf("cannot check %s: %s is no longer a directory", g.rel(root), g.rel(bad)))
			continue
		}
		current := map[string]guardEntry{}
		if err := g.walk(root, func(p string, e guardEntry) error { current[p] = e; return nil }); err != nil {
			errs = append(errs, err)
			continue
		}
		c, err := g.restoreRoot(root, current)
		changes = append(changes, c...)
		errs = append(errs, err)
	}
	return changes, errors.Join(errs...)
}

func (g *Guard) restoreRoot(root string, current map[string]guardEntry) ([]string, error) {
	var changes []string
	var errs []error
	// Deepest first: remove what the call created or turned into another
	// kind.
	paths := sortedKeys(current)
	slices.Reverse(paths)
	for _, p := range paths {
		old, ok := g.snap[p]
		if ok && old.mode.Type() == current[p].mode.Type() {
			continue
		}
		// Children come first, so a directory is empty by now unless it
		// holds coder's own state, which stays (and so does the directory).
		if err := os.Remove(p); err != nil {
			if !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
				errs = append(errs, err)
			}
			continue
		}
		if !ok {
			changes = append(changes, "removed "+g.rel(p)+" (created by the command)")
		}
	}
	// Parents first: what the call changed or deleted.
	for _, p := range sortedKeys(g.snap) {
		if !within(p, root) {
			continue
		}
		old, cur := g.snap[p], current[p]
		_, existed := current[p]
		if existed && old.mode == cur.mode && bytes.Equal(old.data, cur.data) && old.link == cur.link {
			continue
		}
		if err := g.put(p, old, existed && old.mode.Type() == cur.mode.Type()); err != nil {
			errs = append(errs, err)
			continue
		}
		what := "changed"
		if !existed || old.mode.Type() != cur.mode.Type() {
			what = "deleted or replaced"
		}
		changes = append(changes, "restored "+g.rel(p)+" ("+what+" by the command)")
	}
	return changes, errors.Join(errs...)
}

// put writes one saved entry back; sameKind: it exists as the same kind.
func (g *Guard) put(p string, e guardEntry, sameKind bool) error {
	switch {
	case e.mode.IsDir():
		if !sameKind {
			if err := os.Mkdir(p, e.mode.Perm()); err != nil {
				return err
			}
		}
		return os.Chmod(p, e.mode.Perm())
	case e.mode&fs.ModeSymlink != 0:
		_ = os.Remove(p)
		return os.Symlink(e.link, p)
	case e.mode.IsRegular():
		// A fresh file (O_EXCL follows no symlink planted at tmp), renamed
		// over p (which replaces a symlink rather than following it).
		tmp := p + ".coder-restore"
		_ = os.Remove(tmp)
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, e.mode.Perm())
		if err != nil {
			return err
		}
		_, werr := f.Write(e.data)
		if err := errors.Join(werr, f.Chmod(e.mode.Perm()), f.Close()); err != nil {
			_ = os.Remove(tmp)
			return err
		}
		return os.Rename(tmp, p)
	}
	return nil // devices, sockets, fifos: nothing to write back
}

func (g *Guard) rel(p string) string {
	if r, err := filepath.Rel(g.workspace, p); err == nil {
		return r
	}
	return p
}

func sortedKeys(m map[string]guardEntry) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
