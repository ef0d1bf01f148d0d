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

// returnGitDirs puts back a repository's .git directory that a command
// renamed beside it (below LevelFull; at LevelFull it is a mount point):
// the planted one in its place is moved aside. One that left its directory
// altogether is only reported.
func (g *Guard) returnGitDirs(r *guardRoot, now tree) []string {
	var out []string
	for _, rel := range sortedKeys(r.base) {
		b := r.base[rel]
		if b.typ != fs.ModeDir || path.Base(rel) != control.GitName || b.place != control.Tree {
			continue
		}
		if i, ok := slices.BinarySearchFunc(now.control, rel, func(f found, rel string) int { return strings.Compare(f.rel, rel) }); ok && now.control[i].id() == b.id() {
			continue
		}
		dirfd, _, err := parentOf(r.fd, rel)
		if err != nil {
			continue // its directory went too (renamed with it, say)
		}
		if name := nameOf(dirfd, b.id()); name != "" {
			aside, err := moveAside(dirfd, control.GitName)
			if err == nil {
				out = append(out, "moved "+g.rel(r, rel)+" aside to "+g.rel(r, path.Join(path.Dir(rel), aside))+" (created while a command ran)")
			}
			if (err == nil || errors.Is(err, unix.ENOENT)) && renameNoReplace(dirfd, name, control.GitName) == nil {
				out = append(out, "put "+g.rel(r, rel)+" back from "+g.rel(r, path.Join(path.Dir(rel), name))+" (renamed while a command ran)")
			}
		} else if _, err := lstatAt(dirfd, control.GitName); errors.Is(err, unix.ENOENT) {
			out = append(out, "the repository's "+g.rel(r, rel)+" disappeared while a command ran (deleted or moved elsewhere)")
		}
		unix.Close(dirfd)
	}
	return out
}

// nameOf is the name of the entry of dirfd with identity id, or "".
func nameOf(dirfd int, id fileID) string {
	fd, err := unix.Openat(dirfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	f := os.NewFile(uintptr(fd), ".")
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		if st, err := lstatAt(dirfd, n); err == nil && (fileID{uint64(st.Dev), uint64(st.Ino)}) == id {
			return n
		}
	}
	return ""
}

// moveChildrenAside moves aside what a new .coder directory holds besides
// coder's own state.
func (g *Guard) moveChildrenAside(r *guardRoot, rel string) ([]string, error) {
	fd, err := openBeneath(r.fd, rel, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, g.cannot(r, rel, err)
	}
	f := os.NewFile(uintptr(fd), rel)
	names, _ := f.Readdirnames(-1)
	f.Close()
	slices.Sort(names)
	var changes []string
	var errs []error
	for _, n := range names {
		if coderState(n) || strings.Contains(n, movedMark) {
			continue
		}
		line, err := g.moveAside(r, rel+"/"+n, "created while a command ran")
		if err != nil {
			errs = append(errs, err)
		} else if line != "" {
			changes = append(changes, line)
		}
	}
	return changes, errors.Join(errs...)
}
