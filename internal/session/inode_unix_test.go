//go:build unix

package session

import (
	"os"
	"syscall"
	"testing"
)

// inodeOf is path's inode: the same after an append in place, new after a
// rewrite renamed into place.
func inodeOf(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}
