//go:build !unix

package undo

import "io/fs"

// inode is not available here; size and mtime must do.
func inode(fs.FileInfo) uint64 { return 0 }
