//go:build unix

package sandbox

import (
	"errors"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Accept takes path (absolute, a control file or inside one) as it is now
// into the baseline: coder itself changed it (an approval remembered in
// .coder/config.json), so Restore must keep the change.
func (g *Guard) Accept(p string) error {
	for _, r := range g.roots {
		rel, err := filepath.Rel(r.path, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		top, ok := controlEntryOf(r.place, filepath.ToSlash(rel))
		if !ok {
			continue
		}
		return g.accept(r, top, filepath.ToSlash(rel))
	}
	return nil
}

// accept takes rel, in the control entry top of r, as it is now: the
// entry's identity (coder may have just made it) and, where its content is
// kept, rel and what is below it, with the directories between top and rel
// (only those: a command's change beside rel is still put back).
func (g *Guard) accept(r *guardRoot, top, rel string) error {
	f, err := statRel(r.fd, top)
	if errors.Is(err, unix.ENOENT) {
		delete(r.base, top)
		for p := range r.snap {
			if withinRel(p, top) {
				delete(r.snap, p)
			}
		}
		return g.journal.update(g)
	}
	if err != nil {
		return err
	}
	r.known[f.id()], r.base[top] = f.born, f
	if !g.saves(f) {
		return g.journal.update(g)
	}
	for p := range r.snap {
		if withinRel(p, rel) {
			delete(r.snap, p)
		}
	}
	var errs []error
	for dir := path.Dir(rel); withinRel(dir, top) && dir != rel; dir = path.Dir(dir) {
		if _, ok := r.snap[dir]; !ok {
			errs = append(errs, snapshotOne(r.fd, dir, r.snap))
		}
		if dir == top {
			break
		}
	}
	errs = append(errs, snapshot(r.fd, rel, func(p string, s snapped) error {
		if s.Unread != nil {
			return s.Unread
		}
		r.snap[p] = s
		return nil
	}))
	return errors.Join(append(errs, g.journal.update(g))...)
}

// statRel is rel below rootfd, not followed, as a found entry.
func statRel(rootfd int, rel string) (found, error) {
	dirfd, name, err := parentOf(rootfd, rel)
	if err != nil {
		return found{}, err
	}
	defer unix.Close(dirfd)
	var pst unix.Stat_t
	st, err := lstatAt(dirfd, name)
	if err == nil {
		err = unix.Fstat(dirfd, &pst)
	}
	if err != nil {
		return found{}, err
	}
	return found{rel: rel, typ: modeType(uint32(st.Mode)), dev: uint64(st.Dev), ino: uint64(st.Ino),
		born: bornAt(dirfd, name), parent: fileID{uint64(pst.Dev), uint64(pst.Ino)}}, nil
}

// snapshotOne keeps rel itself (a directory's mode), not what is below.
func snapshotOne(rootfd int, rel string, into map[string]snapped) error {
	dirfd, name, err := parentOf(rootfd, rel)
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	st, err := lstatAt(dirfd, name)
	if err != nil {
		return err
	}
	into[rel] = snapped{Mode: fileMode(uint32(st.Mode))}
	return nil
}

// AcceptAll takes every control entry as it is now into the baseline: a
// command the person let run outside the sandbox changed them.
func (g *Guard) AcceptAll() error {
	var errs []error
	for _, r := range g.roots {
		_, err := g.baseline(r)
		errs = append(errs, err)
	}
	return errors.Join(append(errs, g.journal.update(g))...)
}
