package undo

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/coder-agent/coder/internal/session"
)

// A state names what a path holds, compactly enough to store for every
// path a turn changed: "absent", "dir", "link:<target>", or
// "file:<mode>:<sha256>"; "" when it cannot be told (unreadable, or a
// snapshot that did not capture the content). Two states are the same
// content exactly when they are equal and not "".

// StateOf is the state of abs now.
func StateOf(abs string) string {
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "absent"
	case err != nil:
		return ""
	case fi.IsDir():
		return "dir"
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return ""
		}
		return "link:" + target
	case !fi.Mode().IsRegular():
		return ""
	}
	f, err := os.Open(abs)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return fileState(fi.Mode()&keptMode, h.Sum(nil))
}

// entryState is the state a snapshot entry recorded.
func entryState(e session.UndoEntry) string {
	switch {
	case !e.Existed:
		return "absent"
	case e.Skipped != "":
		return ""
	case e.Mode.IsDir():
		return "dir"
	case e.Mode&fs.ModeSymlink != 0:
		return "link:" + string(e.Content)
	}
	sum := sha256.Sum256(e.Content)
	return fileState(e.Mode&keptMode, sum[:])
}

func fileState(mode fs.FileMode, sum []byte) string {
	return fmt.Sprintf("file:%o:%s", uint32(mode.Perm()), hex.EncodeToString(sum))
}
