package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// storeEntries are what the store keeps in its directory; a link among
// them would send a write wherever it points.
var storeEntries = []string{"sessions", "journal", "locks", ".gitignore", "coder.db", "coder.db-wal", "coder.db-shm"}

// storeLocation resolves storage.dir and storage.sqlite_path against the
// workspace root and refuses a place outside it: the store (its
// database, snapshots, journal and locks) is written through real
// directories of the workspace only. A .coder that is a symbolic link — or
// any directory on the way, or one of the store's own entries — would send
// those writes wherever it points, so it is refused, named, before
// anything is created.
func storeLocation(root, dir, sqlitePath string) (storeDir, dbPath string, err error) {
	if storeDir, err = insideReal(root, dir, "storage.dir"); err != nil {
		return "", "", err
	}
	for _, e := range storeEntries {
		if err := notALink(filepath.Join(storeDir, e), root); err != nil {
			return "", "", err
		}
	}
	if sqlitePath == "" {
		return storeDir, "", nil
	}
	if dbPath, err = insideReal(root, sqlitePath, "storage.sqlite_path"); err != nil {
		return "", "", err
	}
	return storeDir, dbPath, nil
}

// insideReal makes p absolute against root and checks that it lies inside
// root and that no existing part of it below root is a symbolic link.
func insideReal(root, p, key string) (string, error) {
	root = filepath.Clean(root)
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, p)
	}
	abs = filepath.Clean(abs)
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s %s is outside the workspace %s; coder keeps its session store inside the workspace", key, p, root)
	}
	at := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." {
			continue
		}
		at = filepath.Join(at, part)
		if err := notALink(at, root); err != nil {
			return "", err
		}
	}
	return abs, nil
}

// notALink fails when path is a symbolic link; a missing path is fine (the
// store creates it as a real directory or file).
func notALink(path, root string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("session store: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	rel, _ := filepath.Rel(root, path)
	target, _ := os.Readlink(path)
	return fmt.Errorf("the session store's path %s is a symbolic link (to %s): coder writes its store only inside the workspace, "+
		"through real directories; replace the link with a directory (or remove it) and start again", rel, target)
}
