//go:build !unix

package undo

import "io/fs"

// inode is not available here; size and mtime must do.
func inode(fs.FileInfo) uint64 { return 0 }

// sysStat: neither inode nor change time here.
func sysStat(fs.FileInfo) (uint64, int64) { return 0, 0 }

// openNoFollow: Windows has neither flag; the Lstat just before is the
// check (a FIFO cannot be made there by a command).
const openNoFollow = 0
