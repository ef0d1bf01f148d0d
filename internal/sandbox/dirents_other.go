//go:build unix && !linux

package sandbox

import (
	"os"

	"golang.org/x/sys/unix"
)

// dirEntry is a name in a directory and whether it is a directory.
type dirEntry struct {
	name string
	dir  bool
}

// listDir reads the directory open (readable) as fd. An error leaves the
// list incomplete.
func listDir(fd int) ([]dirEntry, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), ".")
	defer f.Close()
	entries, err := f.ReadDir(-1)
	out := make([]dirEntry, 0, len(entries))
	for _, e := range entries {
		out = append(out, dirEntry{e.Name(), e.IsDir()})
	}
	return out, err
}
