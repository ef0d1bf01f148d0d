//go:build unix && !linux

package sandbox

import "golang.org/x/sys/unix"

// mountsBindControl: no mounts here; the guard keeps the control files'
// content whatever the level (guard.go's watch).
const mountsBindControl = false

// oPath: no O_PATH here; directories are opened for reading.
const oPath = unix.O_RDONLY

// openat2Beneath: no openat2 here; openBeneath walks one name at a time.
func openat2Beneath(int, string, int) (int, error) { return -1, unix.ENOSYS }

// renameNoReplace without renameat2: checked, then renamed. A command
// still running (a background task) could create to in between, and the
// rename would replace it: that moment is this fallback's limit (macOS).
func renameNoReplace(dirfd int, from, to string) error {
	if _, err := lstatAt(dirfd, to); err == nil {
		return unix.EEXIST
	}
	return unix.Renameat(dirfd, from, dirfd, to)
}

// renameExchange without renameat2: b moved to a spare name, a to b, the
// spare to a.
func renameExchange(dirfd int, a, b string) error {
	if _, err := lstatAt(dirfd, b); err != nil {
		return unix.ENOENT
	}
	spare := freshName(b)
	if err := unix.Renameat(dirfd, b, dirfd, spare); err != nil {
		return err
	}
	if err := unix.Renameat(dirfd, a, dirfd, b); err != nil {
		_ = unix.Renameat(dirfd, spare, dirfd, b)
		return err
	}
	return unix.Renameat(dirfd, spare, dirfd, a)
}

// bornAt: no birth time here; inode numbers alone name files.
func bornAt(int, string) int64 { return 0 }
