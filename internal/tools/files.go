package tools

import (
	"io"
	"io/fs"
	"os"
)

// Files is how the file tools read and write file content, by absolute
// path: the disk, or an editor's buffers when coder runs inside one (ACP's
// fs/read_text_file and fs/write_text_file), so the model reads what the
// person sees, unsaved changes included. Everything else the tools do
// (resolving paths, stat, listing, deleting) stays on the file system.
type Files interface {
	// Open opens the file at abs for reading.
	Open(abs string) (io.ReadCloser, error)
	// WriteFile replaces the file at abs with data so that readers see the
	// old or the new content, never a mix; a new file gets perm and its
	// missing parent directories are created.
	WriteFile(abs string, data []byte, perm fs.FileMode) error
}

// DiskFiles is the file system itself, the default.
type DiskFiles struct{}

// Open implements Files.
func (DiskFiles) Open(abs string) (io.ReadCloser, error) { return os.Open(abs) }

// WriteFile implements Files with an atomic rename.
func (DiskFiles) WriteFile(abs string, data []byte, perm fs.FileMode) error {
	return writeFileAtomic(abs, data, perm)
}

// readAll reads the whole file at abs through files.
func readAll(files Files, abs string) ([]byte, error) {
	f, err := files.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
