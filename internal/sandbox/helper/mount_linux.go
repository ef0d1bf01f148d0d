package helper

import (
	"errors"
	"slices"
	"strconv"
	"syscall"
	"unsafe"
)

// bindOp is one path bound onto itself, read-write or read-only, or
// pinned: bound only so that it is a mount point (which cannot be renamed,
// removed or replaced), as writable as what holds it.
type bindOp struct {
	path string // canonical: symlinks resolved, as mountinfo shows it
	rw   bool
	pin  bool
}

// setupMounts builds the command's view of the filesystem inside the new
// mount namespace, as bubblewrap's --ro-bind / / then --bind/--ro-bind do:
//  1. stop propagation to the host; with PrivateTmp, an empty tmpfs on
//     /tmp with the paths the command needs bound back (tmp_linux.go);
//  2. bind each writable root, then each read-only path, onto itself (new
//     mounts whose flags can differ from their parent's);
//  3. remount every mount read-only, except those at or below a writable
//     root whose nearest bound ancestor is writable, keeping the flags the
//     kernel locked (nosuid, nodev, noexec inherited from the host);
//  4. mask the deny-read paths, replace /dev with a minimal one, and mount
//     a fresh /proc for the PID namespace.
func setupMounts(s Spec) error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return wrap("make mounts private", err)
	}
	if s.PrivateTmp {
		if err := privateTmp(s.Keep); err != nil {
			return wrap("private /tmp", err)
		}
	}
	ops := planBinds(s)
	for _, op := range ops {
		if err := syscall.Mount(op.path, op.path, "", syscall.MS_BIND|syscall.MS_REC, ""); err != nil {
			if op.rw && !op.pin {
				continue // left read-only: safe, if less useful
			}
			return wrap("bind "+op.path, err)
		}
	}
	if err := remountAll(ops, s.RemountEach); err != nil {
		return err
	}
	for _, p := range s.DenyRead {
		if err := mask(p); err != nil {
			return err
		}
	}
	if err := minimalDev(); err != nil {
		return err
	}
	if err := syscall.Mount("proc", "/proc", "proc", syscall.MS_NOSUID|syscall.MS_NODEV|syscall.MS_NOEXEC, ""); err != nil {
		return wrap("fresh /proc", err)
	}
	return nil
}

// planBinds resolves the spec's paths (missing ones are skipped) and orders
// them shallow to deep, read-write before read-only at the same path, so a
// deeper or read-only bind lands on top.
func planBinds(s Spec) []bindOp {
	var ops []bindOp
	add := func(paths []string, rw, pin bool) {
		for _, p := range paths {
			if r, _, err := canonical(p); err == nil {
				ops = append(ops, bindOp{path: r, rw: rw, pin: pin})
			}
		}
	}
	add(s.Writable, true, false)
	add(s.Pinned, false, true)
	add(s.ReadOnly, false, false)
	slices.SortStableFunc(ops, func(a, b bindOp) int {
		if d := depth(a.path) - depth(b.path); d != 0 {
			return d
		}
		if a.pin != b.pin { // a pin first: what else is bound there lands on it
			if a.pin {
				return -1
			}
			return 1
		}
		if a.rw == b.rw {
			return 0
		}
		if a.rw {
			return -1
		}
		return 1
	})
	return ops
}

func depth(p string) int {
	if p == "/" {
		return 0
	}
	n := 0
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			n++
		}
	}
	return n
}

// wantWritable: a mount point is writable when the deepest bind at or
// above it (pins aside) is a writable one; with none, it is read-only.
func wantWritable(point string, ops []bindOp) bool {
	rw, best := false, -1
	for _, op := range ops {
		if !op.pin && within(op.path, point) && depth(op.path) >= best {
			rw, best = op.rw, depth(op.path)
		}
	}
	return rw
}

// msNoSymfollow is MS_NOSYMFOLLOW, which syscall does not define.
const msNoSymfollow = 0x100

// mountEntry is one line of /proc/self/mountinfo.
type mountEntry struct {
	point string
	flags uintptr // MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_NOSYMFOLLOW
}

// remountAll gives every mount the read-only flag it should have. A mount
// that cannot be remounted read-only (other than one hidden from us) is an
// error; one that cannot be made writable just stays read-only.
//
// Where the kernel has mount_setattr (5.12), one recursive call makes
// every mount read-only and nosuid — hidden ones too — and only the
// writable ones are then changed back, one call each: a machine's host
// mounts (cgroups, snaps, container layers) no longer cost a remount each
// at every sandboxed start. Elsewhere, if the kernel refuses the
// recursive call, or with each (Spec.RemountEach), each mount is remounted
// as before.
func remountAll(ops []bindOp, each bool) error {
	mounts, err := readMountinfo()
	if err != nil {
		return err
	}
	if !each && setMountAttr("/", atRecursive, mountAttrRdonly|mountAttrNosuid, 0) == nil {
		for _, m := range mounts {
			if wantWritable(m.point, ops) {
				// Fails on a mount the host made read-only (the kernel
				// locked it so): it stays read-only.
				_ = setMountAttr(m.point, 0, 0, mountAttrRdonly)
			}
		}
		return nil
	}
	return remountEach(mounts, ops)
}

// remountEach is remountAll by one bind remount per mount that needs one.
func remountEach(mounts []mountEntry, ops []bindOp) error {
	for _, m := range mounts {
		want := m.flags | syscall.MS_NOSUID
		rw := wantWritable(m.point, ops)
		if rw {
			want &^= syscall.MS_RDONLY
		} else {
			want |= syscall.MS_RDONLY
		}
		if want == m.flags {
			continue
		}
		err := syscall.Mount("", m.point, "", syscall.MS_BIND|syscall.MS_REMOUNT|want, "")
		switch {
		case err == nil, rw:
		case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.ENOENT):
			// Not reachable by path, so not reachable by the command.
		default:
			return wrap("remount "+m.point+" read-only", err)
		}
	}
	return nil
}

// mount_setattr(2): <linux/mount.h>; the syscall's number is the same on
// every architecture (asm-generic numbering since 5.1).
const (
	sysMountSetattr = 442
	atRecursive     = 0x8000
	mountAttrRdonly = 0x1
	mountAttrNosuid = 0x2
)

// mountAttr is struct mount_attr.
type mountAttr struct {
	set, clr, propagation, usernsFd uint64
}

// setMountAttr sets and clears the attributes of the mount at path (and of
// every mount below it with atRecursive).
func setMountAttr(path string, flags uintptr, set, clr uint64) error {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return err
	}
	attr := mountAttr{set: set, clr: clr}
	cwd := -100 // AT_FDCWD: path is absolute
	_, _, errno := syscall.Syscall6(sysMountSetattr, uintptr(cwd), uintptr(unsafe.Pointer(p)),
		flags, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return errno
	}
	return nil
}

func readMountinfo() ([]mountEntry, error) {
	b, err := readFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	var out []mountEntry
	for _, line := range split(string(b), '\n') {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		f := fields(line)
		if len(f) < 6 {
			continue
		}
		out = append(out, mountEntry{point: unescapeMountinfo(f[4]), flags: mountFlags(f[5])})
	}
	return out, nil
}

// mountFlags turns a mount's own options (mountinfo's sixth field) into
// the flags a bind remount must repeat: leaving out a flag the kernel
// locked would make the remount fail.
func mountFlags(opts string) uintptr {
	var f uintptr
	for _, o := range split(opts, ',') {
		switch o {
		case "ro":
			f |= syscall.MS_RDONLY
		case "nosuid":
			f |= syscall.MS_NOSUID
		case "nodev":
			f |= syscall.MS_NODEV
		case "noexec":
			f |= syscall.MS_NOEXEC
		case "nosymfollow":
			f |= msNoSymfollow
		}
		// atime flags are kept by a remount that names none.
	}
	return f
}

// unescapeMountinfo decodes the octal escapes (\040 for a space) the
// kernel writes for whitespace and backslashes in paths.
func unescapeMountinfo(s string) string {
	if indexByte(s, '\\') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b = append(b, byte(n))
				i += 3
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// mask makes p unreadable: an empty, mode-000, read-only tmpfs over a
// directory, /dev/null bound read-only over anything else.
func mask(p string) error {
	r, dir, err := canonical(p)
	if err != nil {
		return nil // nothing there to read
	}
	const flags = syscall.MS_NOSUID | syscall.MS_NODEV | syscall.MS_NOEXEC
	if dir {
		if err := syscall.Mount("tmpfs", r, "tmpfs", flags|syscall.MS_RDONLY, "mode=000,size=4k"); err != nil {
			return wrap("hide "+r, err)
		}
		return nil
	}
	if err := syscall.Mount("/dev/null", r, "", syscall.MS_BIND, ""); err != nil {
		return wrap("hide "+r, err)
	}
	if err := syscall.Mount("", r, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY|syscall.MS_NOSUID|syscall.MS_NOEXEC, ""); err != nil {
		return wrap("hide "+r+" read-only", err)
	}
	return nil
}
