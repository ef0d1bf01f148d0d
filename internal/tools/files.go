package tools

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
)

// Files is an editor's view of the files when coder runs inside one (ACP's
// fs/read_text_file and fs/write_text_file): read, write, edit and patch
// read and write content through it, by absolute path, so the model reads
// what the person sees, unsaved changes included. Everything else the tools
// do (resolving paths, stat, listing, deleting) stays on the file system,
// and without Files content goes through the workspace's root too. The
// tools ask Files only for text files inside the workspace that resolve
// inside it through the workspace's root (see readThrough, fileGuard.write).
type Files interface {
	// Open opens the file at abs for reading, or returns ErrUseDisk.
	Open(abs string) (io.ReadCloser, error)
	// WriteFile replaces the file at abs with data so that readers see the
	// old or the new content, never a mix; a new file gets perm and its
	// missing parent directories are created. Or it returns ErrUseDisk
	// having done nothing.
	WriteFile(abs string, data []byte, perm fs.FileMode) error
}

// ErrUseDisk is a Files' answer for a path it leaves to the disk (one the
// editor does not serve): the tools then read or write it as they do
// without Files, traversal-proof inside the workspace.
var ErrUseDisk = errors.New("not through the editor: use the disk")

// readThrough reads tg through files; handled is false when the content
// is left to the disk: no editor, a path outside the workspace, one that
// does not resolve inside it now (through the workspace's root: the
// editor follows links by name), or a binary file (a NUL byte in its first
// 8 KiB, which the read tool recognises on disk, not as editor text).
func readThrough(files Files, ws *Workspace, tg target) (data []byte, handled bool, err error) {
	if files == nil || !tg.Inside || ws.binary(tg) {
		return nil, false, nil
	}
	f, err := files.Open(tg.Abs)
	if errors.Is(err, ErrUseDisk) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err == nil && len(data) > MaxFileBytes {
		return nil, true, &tooLargeError{size: int64(len(data)), max: MaxFileBytes}
	}
	return data, true, err
}

// binary reports whether tg, opened through the workspace's root, holds a
// NUL byte in its first 8 KiB; true too when it cannot be opened so.
func (w *Workspace) binary(tg target) bool {
	f, err := w.open(tg)
	if err != nil {
		return true // not inside now, or unreadable: the disk path says why
	}
	defer f.Close()
	buf := make([]byte, 8<<10)
	n, _ := io.ReadFull(f, buf)
	return bytes.IndexByte(buf[:n], 0) >= 0
}

// fileRead is a file's content as a tool read it, with the file's status
// taken before the read when it came from the disk (nil through an editor,
// whose buffer may differ from the disk): undo records the file from it.
type fileRead struct {
	text string
	disk fs.FileInfo
}

// read is tg's content, through the editor when there is one; a file
// larger than MaxFileBytes is a *tooLargeError, found before it is read.
func (g fileGuard) read(tg target) (fileRead, error) {
	if data, handled, err := readThrough(g.files, g.ws, tg); handled {
		return fileRead{text: string(data)}, err
	}
	text, fi, err := g.ws.readText(tg, MaxFileBytes)
	return fileRead{text: text, disk: fi}, err
}

// write replaces tg's content atomically, through the editor when there is
// one and tg is inside the workspace. Its directory is made, or found,
// through the workspace's root first, so the path the editor is given
// resolves inside the workspace.
func (g fileGuard) write(tg target, data []byte, perm fs.FileMode) error {
	if done, err := g.writeEditor(tg, func() []byte { return data }, perm); done {
		return err
	}
	return g.ws.writeAtomic(tg, perm, writeBytes(data))
}

// writeText is write of a string, with no copy of it on the disk path.
func (g fileGuard) writeText(tg target, text string, perm fs.FileMode) error {
	if done, err := g.writeEditor(tg, func() []byte { return []byte(text) }, perm); done {
		return err
	}
	return g.ws.writeAtomic(tg, perm, writeString(text))
}

// writeEditor writes through the editor; done is false when the content
// is left to the disk.
func (g fileGuard) writeEditor(tg target, data func() []byte, perm fs.FileMode) (done bool, err error) {
	if g.files == nil || !tg.Inside {
		return false, nil
	}
	dir, _, err := g.ws.parentOf(tg)
	if err != nil {
		return true, err
	}
	_ = dir.Close()
	err = g.files.WriteFile(tg.Abs, data(), perm)
	return !errors.Is(err, ErrUseDisk), err
}
