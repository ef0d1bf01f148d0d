//go:build unix

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"

	"github.com/coder-agent/coder/internal/control"
)

// maxGuarded bounds the bytes a Guard keeps: the control files are small
// (git config and hooks, coder's settings).
const maxGuarded = 16 << 20

// Guard keeps the workspace's control entries (control.Step: .git, .coder,
// .claude, .mcp.json at any depth; git's config, hooks and pointers in
// every git directory) as they were when no sandboxed command ran, for
// what the mounts cannot cover. Watch before the call, Restore after it.
//
// What it puts back is what a sandboxed process could have changed:
//   - At LevelFull every control entry that exists is bound read-only (a
//     .git directory onto itself, so it cannot be renamed or replaced):
//     nothing in them is the command's, so nothing in them is reverted.
//     What a mount cannot cover is a control entry that appears during
//     the call (a new .mcp.json, .git/commondir, a nested repository):
//     one whose inode was not there at Watch is moved aside, in place.
//     A symlink entry (a mount would protect its target, not the link)
//     is put back if replaced.
//   - Below LevelFull the command may write anywhere in the workspace, so
//     every control entry's content is kept and put back, and new ones
//     are moved aside.
//
// Nothing is deleted (handle.go): what is put back takes the place of what
// was there, which is moved aside under a fresh name, and the report says
// "while a command ran", not "by the command": a change the person made in
// another terminal during the call cannot be told from the command's
// below LevelFull, or at LevelFull for a new entry, so it is kept beside.
type Guard struct {
	level Level
	roots []*guardRoot
	// cov is what the baseline's scans found, for the calls' mounts.
	cov *Coverage
	// until, when set, is the end of the window in which sandboxed
	// processes ran (a journal left by a coder that died): anything
	// changed later is the person's and stays.
	until   time.Time
	journal *journal
}

// guardRoot is one tree the guard watches: the workspace, or a git
// directory outside it that commands may write (a linked worktree's).
type guardRoot struct {
	path     string
	place    control.Place
	patterns []string
	fd       int                // opened at Watch: the command cannot swap it
	known    map[fileID]int64   // inodes of the control entries at Watch, with their birth times
	base     map[string]found   // control entries at Watch, by rel
	snap     map[string]snapped // what is put back, by rel
}

// snapped is one saved path: a directory's mode, a file's content, a
// symlink's target.
type snapped struct {
	Mode fs.FileMode `json:"mode"`
	Data []byte      `json:"data,omitempty"`
	Link string      `json:"link,omitempty"`
	// Unread: a regular file that could not be read (larger than
	// maxGuarded, or swapped for a FIFO meanwhile). Never equal to a
	// saved one: as it is now, it is put back or moved aside; in a
	// baseline, it is an error.
	Unread error `json:"-"`
}

// Watch takes the baseline of p's control entries: none when the
// workspace is read-only (then nothing in it may change at all).
func Watch(p Profile) (*Guard, error) {
	return watch(p, "")
}

// WatchJournaled is Watch that also keeps the baseline in a journal in
// dir until Close, so that the next start can restore it if this process
// dies first (RecoverJournals).
func WatchJournaled(p Profile, dir string) (*Guard, error) {
	return watch(p, dir)
}

func watch(p Profile, journalDir string) (*Guard, error) {
	g := &Guard{level: p.level()}
	if !mountsBindControl && g.level >= LevelFull {
		// No mounts (macOS): Seatbelt denies writes to the control
		// entries by path, which a hard link made inside a writable root
		// gets past, so their content is kept and put back as at the
		// Linux fallbacks.
		g.level = LevelLandlock
	}
	if p.Policy == ReadOnly {
		return g, nil
	}
	var trees []tree
	for _, r := range p.scanRoots() {
		gr, err := openGuardRoot(r.path, r.place, r.patterns)
		if err != nil {
			g.Close()
			return nil, err
		}
		g.roots = append(g.roots, gr)
		t, err := g.baseline(gr)
		if err != nil {
			g.Close()
			return nil, err
		}
		trees = append(trees, t)
	}
	cov := coverageOf(trees)
	g.cov = &cov
	if journalDir != "" && p.journalUsable(journalDir) {
		j, err := writeJournal(journalDir, g, p.Workspace)
		if err != nil {
			g.Close()
			return nil, err
		}
		g.journal = j
	}
	return g, nil
}

func openGuardRoot(dir string, place control.Place, patterns []string) (*guardRoot, error) {
	fd, err := unix.Open(dir, oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	return &guardRoot{path: dir, place: place, patterns: patterns, fd: fd}, nil
}

// Coverage is what the baseline's scan found: a call's mounts can use it
// (Profile.Scanned) rather than scan again. Nil for a read-only workspace.
func (g *Guard) Coverage() *Coverage { return g.cov }

// baseline scans r and keeps what Restore compares against.
func (g *Guard) baseline(r *guardRoot) (tree, error) {
	t, err := scanRoot(r.path, r.place, r.patterns)
	if err != nil {
		return t, err
	}
	r.known, r.base, r.snap = map[fileID]int64{}, map[string]found{}, map[string]snapped{}
	total := 0
	for _, c := range t.control {
		r.known[c.id()] = c.born
		r.base[c.rel] = c
		if !g.saves(c) {
			continue
		}
		err := snapshot(r.fd, c.rel, func(rel string, s snapped) error {
			if s.Unread != nil {
				return fmt.Errorf("sandbox: cannot keep %s: %w", rel, s.Unread)
			}
			if total += len(s.Data); total > maxGuarded {
				return fmt.Errorf("sandbox: control files hold more than %d MiB; too large to guard", maxGuarded>>20)
			}
			r.snap[rel] = s
			return nil
		})
		if err != nil {
			return t, err
		}
	}
	return t, nil
}

// saves reports whether the content of control entry c is kept: below
// LevelFull every one's but a .git directory's (most of which commands
// must write: it is kept by its identity), at LevelFull only a symlink's
// (the others are bound read-only for every call).
func (g *Guard) saves(c found) bool {
	switch {
	case c.typ == fs.ModeSymlink:
		return true
	case g.level >= LevelFull:
		return false
	}
	return c.typ != fs.ModeDir || path.Base(c.rel) != control.GitName
}

// Restore puts the control entries back as Watch saw them, moves aside
// those that appeared, and returns one line per change, relative to the
// workspace, for the model and the person.
func (g *Guard) Restore() ([]string, error) {
	var changes []string
	var errs []error
	for _, r := range g.roots {
		c, err := g.restoreRoot(r)
		changes = append(changes, c...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return changes, errors.Join(errs...)
}

func (g *Guard) restoreRoot(r *guardRoot) ([]string, error) {
	t, err := scanRoot(r.path, r.place, r.patterns)
	if err != nil {
		return nil, err
	}
	var changes []string
	var errs []error
	note := func(line string, err error) {
		if err != nil {
			errs = append(errs, err)
		} else if line != "" {
			changes = append(changes, line)
		}
	}
	for _, line := range g.returnGitDirs(r, t) {
		note(line, nil)
	}
	if len(changes) > 0 { // a .git came back: look again
		if t, err = scanRoot(r.path, r.place, r.patterns); err != nil {
			return changes, err
		}
	}
	// Control entries whose inode is new: moved aside, outermost first
	// (a new repository's config goes with its .git).
	var moved []string
	for _, c := range t.control {
		if r.knows(c) || slices.ContainsFunc(moved, func(m string) bool { return withinRel(c.rel, m) }) {
			continue
		}
		if b, ok := r.base[c.rel]; ok && g.level >= LevelFull && b.parent == c.parent {
			// Bound read-only in the same directory: no command could
			// replace it (a mount point); the person did.
			continue
		}
		if _, saved := r.snap[c.rel]; saved {
			continue // put back below, the new one moved aside then
		}
		if wt, ok := worktreeOf(r.place, c.rel); ok && !r.hasBase(wt) {
			// A worktree made meanwhile (git worktree add, here or in
			// another checkout of the repository): only a .git file
			// pointing at it would use it, and a new one is moved aside.
			continue
		}
		if g.later(r.fd, c.rel) {
			continue
		}
		if path.Base(c.rel) == ".coder" && c.typ == fs.ModeDir {
			// coder's own state may be in it already: what else is.
			c, err := g.moveChildrenAside(r, c.rel)
			changes = append(changes, c...)
			note("", err)
			continue
		}
		note(g.moveAside(r, c.rel, "created while a command ran"))
		moved = append(moved, c.rel)
	}
	// What was saved: compared and put back.
	for _, rel := range sortedKeys(r.base) {
		if _, saved := r.snap[rel]; !saved {
			continue
		}
		c, err := g.restoreTree(r, rel)
		changes = append(changes, c...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return changes, errors.Join(errs...)
}

// restoreTree puts back the saved entry rel and, for a directory, what
// was below it: what is new there is moved aside, what changed put back.
func (g *Guard) restoreTree(r *guardRoot, top string) ([]string, error) {
	current := map[string]snapped{}
	_ = snapshot(r.fd, top, func(rel string, s snapped) error { current[rel] = s; return nil })
	var changes []string
	var errs []error
	// New below the saved entry: moved aside, outermost first; of
	// another kind: put back below, which moves it aside.
	var moved []string
	for _, rel := range sortedKeys(current) {
		old, saved := r.snap[rel]
		switch {
		case slices.ContainsFunc(moved, func(m string) bool { return withinRel(rel, m) }):
		case saved && old.Mode.Type() == current[rel].Mode.Type():
		case saved:
			moved = append(moved, rel)
		case !g.later(r.fd, rel):
			line, err := g.moveAside(r, rel, "created while a command ran")
			if err != nil {
				errs = append(errs, err)
			} else if line != "" {
				changes = append(changes, line)
			}
			moved = append(moved, rel)
		}
	}
	// Saved: put back where missing or different, parents first.
	for _, rel := range sortedKeys(r.snap) {
		if !withinRel(rel, top) {
			continue
		}
		old := r.snap[rel]
		cur, exists := current[rel]
		if exists && same(old, cur) {
			continue
		}
		if exists && g.later(r.fd, rel) {
			continue
		}
		line, err := g.putBack(r, rel, old, cur, exists)
		if err != nil {
			errs = append(errs, err)
		} else if line != "" {
			changes = append(changes, line)
		}
	}
	return changes, errors.Join(errs...)
}

func same(a, b snapped) bool {
	return a.Unread == nil && b.Unread == nil && a.Mode == b.Mode && bytes.Equal(a.Data, b.Data) && a.Link == b.Link
}

// putBack writes one saved entry back.
func (g *Guard) putBack(r *guardRoot, rel string, old, cur snapped, exists bool) (string, error) {
	dirfd, name, err := parentOf(r.fd, rel)
	if err != nil {
		return "", g.cannot(r, rel, err)
	}
	defer unix.Close(dirfd)
	sameKind := exists && old.Mode.Type() == cur.Mode.Type()
	var aside string
	switch {
	case old.Mode.IsDir() && sameKind:
		// Only its mode differs: what is below is compared on its own.
		if err := unix.Fchmodat(dirfd, name, uint32(old.Mode.Perm()), 0); err != nil {
			return "", g.cannot(r, rel, err)
		}
		return "restored the mode of " + g.rel(r, rel) + " (changed while a command ran)", nil
	case old.Mode.IsDir():
		aside, err = putDir(dirfd, name, old.Mode)
	case old.Mode&fs.ModeSymlink != 0:
		aside, err = putSymlink(dirfd, name, old.Link)
	case old.Mode.IsRegular():
		aside, err = putFile(dirfd, name, old.Data, old.Mode)
	default:
		return "", nil // devices, sockets, fifos: nothing to write back
	}
	if err != nil {
		return "", g.cannot(r, rel, err)
	}
	what := "changed"
	if !sameKind {
		what = "deleted or replaced"
	}
	line := "restored " + g.rel(r, rel) + " (" + what + " while a command ran"
	if aside != "" {
		line += "; what was there is now " + g.rel(r, path.Join(path.Dir(rel), aside))
	}
	return line + ")", nil
}

// moveAside renames rel to a fresh name beside it.
func (g *Guard) moveAside(r *guardRoot, rel, why string) (string, error) {
	dirfd, name, err := parentOf(r.fd, rel)
	if err != nil {
		return "", g.cannot(r, rel, err)
	}
	defer unix.Close(dirfd)
	aside, err := moveAside(dirfd, name)
	if errors.Is(err, unix.ENOENT) {
		return "", nil // gone meanwhile
	}
	if err != nil {
		return "", g.cannot(r, rel, err)
	}
	return "moved " + g.rel(r, rel) + " aside to " + g.rel(r, path.Join(path.Dir(rel), aside)) + " (" + why + ")", nil
}

// later reports whether rel changed after the window a recovered journal
// covers: the person's, then, and kept.
func (g *Guard) later(rootfd int, rel string) bool {
	if g.until.IsZero() {
		return false
	}
	dirfd, name, err := parentOf(rootfd, rel)
	if err != nil {
		return false
	}
	defer unix.Close(dirfd)
	st, err := lstatAt(dirfd, name)
	return err == nil && time.Unix(0, st.Ctim.Nano()).After(g.until)
}

// knows reports whether c is a control entry of the baseline, wherever
// it is now: the same inode, born when that one was.
func (r *guardRoot) knows(c found) bool {
	born, ok := r.known[c.id()]
	return ok && (born == 0 || c.born == 0 || born == c.born)
}

func (g *Guard) cannot(r *guardRoot, rel string, err error) error {
	return fmt.Errorf("cannot check %s: %w", g.rel(r, rel), err)
}

// rel names a path for the report: relative to the workspace, or
// absolute for a root outside it.
func (g *Guard) rel(r *guardRoot, rel string) string {
	if r.place == control.Tree {
		return filepath.FromSlash(rel)
	}
	return filepath.Join(r.path, filepath.FromSlash(rel))
}

// Close ends the guard after its last Restore: the journal is removed and
// the roots closed.
func (g *Guard) Close() {
	g.journal.remove()
	for _, r := range g.roots {
		unix.Close(r.fd)
	}
	g.roots = nil
}
