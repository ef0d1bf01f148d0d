//go:build unix

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/coder-agent/coder/internal/control"
)

// controlEntryOf is the control entry rel is or lies in, walking from a
// root at place start.
func controlEntryOf(start control.Place, rel string) (string, bool) {
	p := start
	parts := strings.Split(rel, "/")
	for i, name := range parts {
		next := control.Step(p, name)
		if next == control.Control || i == len(parts)-1 && control.IsEntry(p, name) {
			return strings.Join(parts[:i+1], "/"), true
		}
		if next == control.Other {
			return "", false
		}
		p = next
	}
	return "", false
}

// worktreeOf is the private git directory of a linked worktree
// (…/worktrees/ID) that rel lies in, walking from a root at place start.
func worktreeOf(start control.Place, rel string) (string, bool) {
	p := start
	parts := strings.Split(rel, "/")
	for i, name := range parts {
		if p == control.GitWorktrees {
			return strings.Join(parts[:i+1], "/"), true
		}
		if p = control.Step(p, name); p == control.Control || p == control.Other {
			return "", false
		}
	}
	return "", false
}

// hasBase reports whether the baseline holds a control entry at or below
// dir.
func (r *guardRoot) hasBase(dir string) bool {
	for rel := range r.base {
		if withinRel(rel, dir) {
			return true
		}
	}
	return false
}

// snapshot visits rel below rootfd and, for a directory, what is below it,
// without following symlinks; coder's own state inside a .coder directory
// (which coder writes during a call) is left out.
func snapshot(rootfd int, rel string, visit func(string, snapped) error) error {
	dirfd, name, err := parentOf(rootfd, rel)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			return nil
		}
		return err
	}
	st, err := lstatAt(dirfd, name)
	if err != nil {
		unix.Close(dirfd)
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		return err
	}
	s := snapped{Mode: fileMode(uint32(st.Mode))}
	switch s.Mode.Type() {
	case fs.ModeSymlink:
		buf := make([]byte, unix.PathMax)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			unix.Close(dirfd)
			return err
		}
		s.Link = string(buf[:n])
	case 0:
		if s.Data, err = readBeneath(rootfd, rel, maxGuarded); err != nil && !errors.Is(err, unix.ENOENT) {
			s.Data, s.Unread = nil, err
		}
	}
	unix.Close(dirfd)
	if err := visit(rel, s); err != nil {
		return err
	}
	if !s.Mode.IsDir() {
		return nil
	}
	fd, err := openBeneath(rootfd, rel, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil // replaced meanwhile, or unreadable: nothing below to keep
	}
	f := os.NewFile(uintptr(fd), rel)
	names, _ := f.Readdirnames(-1)
	f.Close()
	slices.Sort(names)
	for _, n := range names {
		if path.Base(rel) == ".coder" && coderState(n) {
			continue
		}
		if err := snapshot(rootfd, rel+"/"+n, visit); err != nil {
			return err
		}
	}
	return nil
}

// coderState names what coder itself writes in a .coder directory while a
// command runs: sessions, the database, the patch journal, the owners'
// locks (.coder/locks).
func coderState(name string) bool {
	return name == "sessions" || name == "journal" || strings.HasPrefix(name, "coder.db") ||
		name == "locks" || name == "lock" || strings.HasSuffix(name, ".lock")
}

// fileMode turns a stat mode into an fs.FileMode (type and permissions).
func fileMode(m uint32) fs.FileMode {
	return modeType(m) | fs.FileMode(m&0o777)
}

// withinRel reports whether rel is dir or below it (slash paths).
func withinRel(rel, dir string) bool {
	return rel == dir || strings.HasPrefix(rel, dir+"/")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
