package sandbox

import "golang.org/x/sys/unix"

// mountsBindControl: at LevelFull the mounts bind every control entry the
// scan finds (Coverage), so the guard need not keep their content.
const mountsBindControl = true

// oPath opens a directory only to name things in it: no read permission
// needed, nothing readable through it.
const oPath = unix.O_PATH

// openat2Beneath is openat2 that stays below dirfd and follows no symlink
// (ENOSYS before Linux 5.6).
func openat2Beneath(dirfd int, rel string, flags int) (int, error) {
	return unix.Openat2(dirfd, rel, &unix.OpenHow{Flags: uint64(flags),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
}

// renameNoReplace renames from to to in dirfd unless to exists (EEXIST).
func renameNoReplace(dirfd int, from, to string) error {
	return unix.Renameat2(dirfd, from, dirfd, to, unix.RENAME_NOREPLACE)
}

// renameExchange swaps the entries a and b of dirfd atomically (ENOENT
// when one is missing).
func renameExchange(dirfd int, a, b string) error {
	return unix.Renameat2(dirfd, a, dirfd, b, unix.RENAME_EXCHANGE)
}

// bornAt is the birth time of name in the directory fd (not followed), in
// nanoseconds; 0 where the file system does not keep one.
func bornAt(fd int, name string) int64 {
	var stx unix.Statx_t
	if unix.Statx(fd, name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &stx) != nil || stx.Mask&unix.STATX_BTIME == 0 {
		return 0
	}
	return stx.Btime.Sec*1e9 + int64(stx.Btime.Nsec)
}
