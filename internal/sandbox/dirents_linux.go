package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// dirEntry is a name in a directory and whether it is a directory.
type dirEntry struct {
	name string
	dir  bool
}

// listDir reads the directory open (readable) as fd with getdents64: the
// kernel gives each entry's type, so no stat is needed to find the
// sub-directories (a file system that gives none is asked by fstatat).
// An error leaves the list incomplete.
func listDir(fd int) ([]dirEntry, error) {
	var out []dirEntry
	buf := make([]byte, 16<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return out, err
		}
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
		for off := 0; off+19 < n; {
			reclen := int(*(*uint16)(unsafe.Pointer(&buf[off+16])))
			typ := buf[off+18]
			if reclen == 0 || off+reclen > n {
				break
			}
			nameBytes := buf[off+19 : off+reclen]
			off += reclen
			l := 0
			for l < len(nameBytes) && nameBytes[l] != 0 {
				l++
			}
			name := string(nameBytes[:l])
			if name == "." || name == ".." {
				continue
			}
			isDir := typ == unix.DT_DIR
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				isDir = unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
			}
			out = append(out, dirEntry{name, isDir})
		}
	}
}
