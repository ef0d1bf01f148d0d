//go:build windows

package session

import (
	"os"
	"syscall"
	"testing"
)

// inodeOf is path's file index, NTFS's inode: the same after an append in
// place, new after a rewrite renamed into place.
func inodeOf(t *testing.T, path string) uint64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var d syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &d); err != nil {
		t.Fatal(err)
	}
	return uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)
}
