package tools

import (
	"errors"
	"io"
	"io/fs"
)

// Files is an editor's view of the files when coder runs inside one (ACP's
// fs/read_text_file and fs/write_text_file): read, write, edit and patch
// read and write content through it, by absolute path, so the model reads
// what the person sees, unsaved changes included. Everything else the tools
// do (resolving paths, stat, listing, deleting) stays on the file system,
// and without Files content goes through the workspace's root too.
type Files interface {
	// Open opens the file at abs for reading, or returns ErrUseDisk.
	Open(abs string) (io.ReadCloser, error)
	// WriteFile replaces the file at abs with data so that readers see the
	// old or the new content, never a mix; a new file gets perm and its
	// missing parent directories are created. Or it returns ErrUseDisk
	// having done nothing.
	WriteFile(abs string, data []byte, perm fs.FileMode) error
}

// ErrUseDisk is a Files' answer for a path it leaves to the disk (one
// outside the editor's workspace, a binary file): the tools then read or
// write it as they do without Files, traversal-proof inside the workspace.
var ErrUseDisk = errors.New("not through the editor: use the disk")

// readThrough reads tg through files; handled is false when files leaves
// the path to the disk.
func readThrough(files Files, tg target) (data []byte, handled bool, err error) {
	f, err := files.Open(tg.Abs)
	if errors.Is(err, ErrUseDisk) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	defer f.Close()
	data, err = io.ReadAll(f)
	return data, true, err
}

// read is tg's content, through the editor when there is one.
func (g fileGuard) read(tg target) ([]byte, error) {
	if g.files != nil {
		if data, handled, err := readThrough(g.files, tg); handled {
			return data, err
		}
	}
	return g.ws.readFile(tg)
}

// write replaces tg's content atomically, through the editor when there is
// one.
func (g fileGuard) write(tg target, data []byte, perm fs.FileMode) error {
	if g.files != nil {
		if err := g.files.WriteFile(tg.Abs, data, perm); !errors.Is(err, ErrUseDisk) {
			return err
		}
	}
	return g.ws.writeAtomic(tg, data, perm)
}
