package tools

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Traversal-proof file access. A path is resolved (symlinks followed) when
// a call is prepared, but the file system can change before it is used: a
// model's background command can swap a directory for a symlink to
// anywhere. Every open, write, rename and removal of a path inside the
// workspace therefore goes through the workspace's os.Root, which refuses
// any resolution that leaves it; a path a person approved outside the
// workspace uses the ordinary calls.

// local is tg's path relative to the root, in the OS's separators, and
// whether it is inside at all.
func local(tg target) (string, bool) {
	if !tg.Inside {
		return "", false
	}
	return filepath.FromSlash(tg.Rel), true
}

// open opens tg for reading. O_NONBLOCK keeps a FIFO swapped in for a
// file from blocking the call; regular files ignore it.
func (w *Workspace) open(tg target) (*os.File, error) {
	if rel, ok := local(tg); ok && w.root != nil {
		return w.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	}
	return os.OpenFile(tg.Abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

func (w *Workspace) stat(tg target) (fs.FileInfo, error) {
	if rel, ok := local(tg); ok && w.root != nil {
		return w.root.Stat(rel)
	}
	return os.Stat(tg.Abs)
}

// readText reads tg whole as a string, in one allocation of its size:
// editing a file holds its text once (a ReadAll into bytes and a copy
// into a string would hold it three times over). A file that is or has
// grown larger than max is refused before it is read whole. fi is the
// file's status taken on the open file before the read.
func (w *Workspace) readText(tg target, max int64) (text string, fi fs.FileInfo, err error) {
	f, err := w.open(tg)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	fi, err = f.Stat()
	if err != nil {
		return "", nil, err
	}
	if fi.Size() > max {
		return "", nil, &tooLargeError{size: fi.Size(), max: max}
	}
	var b strings.Builder
	b.Grow(int(fi.Size()) + 1) // +1: one Read that finds the end
	n, err := io.Copy(&b, io.LimitReader(f, max+1))
	if err != nil {
		return "", nil, err
	}
	if n > max {
		return "", nil, &tooLargeError{size: n, max: max}
	}
	return b.String(), fi, nil
}

func (w *Workspace) remove(tg target) error {
	if rel, ok := local(tg); ok && w.root != nil {
		return w.root.Remove(rel)
	}
	return os.Remove(tg.Abs)
}

// keptModeBits are the bits of an existing file that a rewrite preserves.
const keptModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// writeAtomic replaces tg with data so that readers see the old or the new
// content, never a mix (see replaceIn). Missing parent directories are
// created. The parent directory is opened once and every step acts on it
// (see parentOf), so a swapped directory makes the write fail, or land in
// the directory first opened, never elsewhere.
func (w *Workspace) writeAtomic(tg target, perm fs.FileMode, fill func(*os.File) error) error {
	dir, base, err := w.parentOf(tg)
	if err != nil {
		return err
	}
	defer dir.Close()
	return replaceIn(dir, base, tg.Rel, perm, fill)
}

// writeFileAtomic is writeAtomic for coder's own files, outside any
// workspace (the patch journal).
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	dir, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	return replaceIn(dir, filepath.Base(path), path, perm, writeBytes(data))
}

// replaceIn replaces base in dir with what fill writes: a temporary file
// beside it is written, synced and renamed over it, and the directory
// synced; the temporary file is always removed on failure. An existing
// file keeps its permission bits; a new one gets perm. shown names it in
// errors.
func replaceIn(dir *os.Root, base, shown string, perm fs.FileMode, fill func(*os.File) error) error {
	mode := perm
	if fi, err := dir.Stat(base); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", shown)
		}
		mode = fi.Mode() & keptModeBits
	}
	tmp := tempName(base)
	if err := createIn(dir, tmp, mode, fill); err != nil {
		return err
	}
	if err := dir.Rename(tmp, base); err != nil {
		_ = dir.Remove(tmp)
		return err
	}
	syncDir(dir)
	return nil
}

// tempName is the name of a temporary file written beside base.
func tempName(base string) string { return "." + base + ".tmp-" + randomSuffix() }

// syncDir makes a rename or removal in dir durable; failure only weakens
// durability.
func syncDir(dir *os.Root) {
	if d, err := dir.Open("."); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// parentOf opens tg's parent directory, created if missing, as a root of
// its own: inside the workspace through the workspace's root (refusing any
// resolution that leaves it), outside (approved) directly. The steps that
// follow act on that directory whatever its name becomes.
func (w *Workspace) parentOf(tg target) (*os.Root, string, error) {
	base := filepath.Base(tg.Abs)
	if rel, ok := local(tg); ok && w.root != nil {
		dir := filepath.Dir(rel)
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return nil, "", err
		}
		r, err := w.root.OpenRoot(dir)
		return r, base, err
	}
	dir := filepath.Dir(tg.Abs)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	r, err := os.OpenRoot(dir)
	return r, base, err
}

// writeNewIn creates name (which must not exist) in dir with data, synced;
// it is removed again on failure.
func writeNewIn(dir *os.Root, name string, data []byte, perm fs.FileMode) error {
	return createIn(dir, name, perm, writeBytes(data))
}

func writeBytes(data []byte) func(*os.File) error {
	return func(f *os.File) error {
		_, err := f.Write(data)
		return err
	}
}

// writeString writes the string's own bytes (os.File.WriteString): no
// copy of a big file's text.
func writeString(text string) func(*os.File) error {
	return func(f *os.File) error {
		_, err := f.WriteString(text)
		return err
	}
}

// createIn creates name (which must not exist) in dir with what fill
// writes, synced; it is removed again on failure.
func createIn(dir *os.Root, name string, perm fs.FileMode, fill func(*os.File) error) (err error) {
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = dir.Remove(name)
		}
	}()
	if err = fill(f); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// rename moves from to to, both inside the workspace or both handled by
// the ordinary call when either is outside (approved).
func (w *Workspace) rename(from, to target) error {
	rf, ok1 := local(from)
	rt, ok2 := local(to)
	if ok1 && ok2 && w.root != nil {
		return w.root.Rename(rf, rt)
	}
	return os.Rename(from.Abs, to.Abs)
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// openRead opens abs for reading and returns a raw file descriptor (grep's
// fast path): beneath the root with openat2 when abs is inside the
// workspace, falling back to the root's Open where openat2 is missing.
func (w *Workspace) openRead(abs string) (rawFD, error) {
	if w.root != nil && w.contains(abs) {
		rel, err := filepath.Rel(w.Root, abs)
		if err != nil {
			return noFD, err
		}
		fd, err := openBeneath(w.dirFd, rel)
		if err != errNoOpenat2 {
			return fd, err
		}
		f, err := w.root.Open(rel)
		if err != nil {
			return noFD, err
		}
		defer f.Close()
		return dupFD(f)
	}
	return openFD(abs)
}
