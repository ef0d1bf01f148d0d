//go:build unix

package undo

import (
	"io/fs"
	"syscall"
)

// inode tells a file replaced by rename (sed -i, editors) from the original
// even when its size and mtime match.
func inode(fi fs.FileInfo) uint64 {
	ino, _ := sysStat(fi)
	return ino
}

// sysStat is fi's inode and change time (ns).
func sysStat(fi fs.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), changeTime(st)
	}
	return 0, 0
}

// openNoFollow opens without following a link swapped in since the Lstat
// and without hanging on a FIFO.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
