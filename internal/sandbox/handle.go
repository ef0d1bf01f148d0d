//go:build unix

package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// The restore works on file descriptors opened beneath a root coder opened
// before the call (so the command cannot rename it away): every path is
// resolved one name at a time below that root, never through a symlink
// (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS), and every change is
// made at a directory descriptor with the *at calls on a final name, which
// never follow it. What a directory descriptor refers to may be moved by a
// command meanwhile, but only to where the command itself may write: coder
// never changes anything the command could not have changed itself, and
// never anything outside the workspace (or the git directories it writes).
//
// Nothing is deleted: what is put back takes its place by an atomic
// exchange (renameat2 RENAME_EXCHANGE), and what was there, or a control
// entry a command created, is moved aside in the same directory under a
// fresh name (movedMark plus random letters; O_EXCL, never a fixed name a
// command could have planted).

// movedMark is in the name of whatever the restore moved aside.
const movedMark = ".coder-moved-"

// errEscape is a relative path that tries to leave its root.
var errEscape = errors.New("path leaves the workspace")

// openBeneath opens rel (slash-separated, relative to the directory dirfd)
// without leaving dirfd's tree and without following any symlink.
func openBeneath(dirfd int, rel string, flags int) (int, error) {
	flags |= unix.O_CLOEXEC | unix.O_NOFOLLOW
	if rel == "" || rel == "." {
		return unix.Openat(dirfd, ".", flags&^unix.O_NOFOLLOW, 0)
	}
	if path.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, "/../") || strings.HasSuffix(rel, "/..") {
		return -1, errEscape
	}
	fd, err := openat2Beneath(dirfd, rel, flags)
	if !errors.Is(err, unix.ENOSYS) {
		return fd, err
	}
	// No openat2 (Linux before 5.6, other systems): the same, one name at
	// a time.
	parts := strings.Split(rel, "/")
	cur := dirfd
	for i, name := range parts[:len(parts)-1] {
		next, err := unix.Openat(cur, name, oPath|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if i > 0 {
			unix.Close(cur)
		}
		if err != nil {
			return -1, err
		}
		cur = next
	}
	fd, err = unix.Openat(cur, parts[len(parts)-1], flags, 0)
	if cur != dirfd {
		unix.Close(cur)
	}
	return fd, err
}

// parentOf opens the directory holding rel and returns it with rel's last
// name.
func parentOf(rootfd int, rel string) (int, string, error) {
	dir, name := path.Split(rel)
	fd, err := openBeneath(rootfd, strings.TrimSuffix(dir, "/"), oPath|unix.O_DIRECTORY)
	return fd, name, err
}

// readBeneath reads the regular file rel below dirfd, at most limit bytes
// (a longer file is an error). A FIFO or device there is not opened for
// long: O_NONBLOCK, then refused as not a regular file.
func readBeneath(dirfd int, rel string, limit int) ([]byte, error) {
	fd, err := openBeneath(dirfd, rel, unix.O_RDONLY|unix.O_NONBLOCK)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err == nil && len(b) > limit {
		err = fmt.Errorf("%s is larger than %d bytes", rel, limit)
	}
	return b, err
}

// lstatAt is the entry name in dirfd, not followed.
func lstatAt(dirfd int, name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	return st, err
}

// freshName is name with movedMark and random letters: a name nobody
// planted.
func freshName(name string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return name + movedMark + hex.EncodeToString(b)
}

// moveAside renames the entry name in dirfd to a fresh name beside it and
// returns that name.
func moveAside(dirfd int, name string) (string, error) {
	for range 8 {
		aside := freshName(name)
		err := renameNoReplace(dirfd, name, aside)
		if !errors.Is(err, unix.EEXIST) {
			return aside, err
		}
	}
	return "", fmt.Errorf("move %s aside: no free name", name)
}

// putInPlace moves the entry tmp (just made, in dirfd) to name: by an
// atomic exchange when something is there, which then sits at tmp and is
// returned as moved aside ("" when name was free).
func putInPlace(dirfd int, tmp, name string) (aside string, err error) {
	err = renameExchange(dirfd, tmp, name)
	if err == nil {
		return tmp, nil
	}
	if errors.Is(err, unix.ENOENT) {
		err = renameNoReplace(dirfd, tmp, name)
	}
	if err != nil {
		// What we made and could not put in place (empty if a directory).
		if unix.Unlinkat(dirfd, tmp, 0) != nil {
			_ = unix.Unlinkat(dirfd, tmp, unix.AT_REMOVEDIR)
		}
		return "", err
	}
	return "", nil
}

// makeFresh creates an entry under a fresh name in dirfd with make, and
// returns the name.
func makeFresh(name string, make func(tmp string) error) (string, error) {
	for range 8 {
		tmp := freshName(name)
		err := make(tmp)
		if !errors.Is(err, unix.EEXIST) {
			return tmp, err
		}
	}
	return "", fmt.Errorf("put %s back: no free name", name)
}

// putFile puts a regular file with data and mode perm at name in dirfd.
func putFile(dirfd int, name string, data []byte, perm fs.FileMode) (string, error) {
	tmp, err := makeFresh(name, func(tmp string) error {
		fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err != nil {
			return err
		}
		f := os.NewFile(uintptr(fd), tmp)
		_, werr := f.Write(data)
		if err := errors.Join(werr, f.Chmod(perm.Perm()), f.Close()); err != nil {
			_ = unix.Unlinkat(dirfd, tmp, 0)
			return err
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return putInPlace(dirfd, tmp, name)
}

// putSymlink puts a symlink to target at name in dirfd.
func putSymlink(dirfd int, name, target string) (string, error) {
	tmp, err := makeFresh(name, func(tmp string) error { return unix.Symlinkat(target, dirfd, tmp) })
	if err != nil {
		return "", err
	}
	return putInPlace(dirfd, tmp, name)
}

// putDir puts an empty directory with mode perm at name in dirfd.
func putDir(dirfd int, name string, perm fs.FileMode) (string, error) {
	tmp, err := makeFresh(name, func(tmp string) error { return unix.Mkdirat(dirfd, tmp, uint32(perm.Perm())) })
	if err != nil {
		return "", err
	}
	if err := unix.Fchmodat(dirfd, tmp, uint32(perm.Perm()), 0); err != nil {
		_ = unix.Unlinkat(dirfd, tmp, unix.AT_REMOVEDIR)
		return "", err
	}
	return putInPlace(dirfd, tmp, name)
}
