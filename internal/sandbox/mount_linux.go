package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/coder-agent/coder/internal/paths"
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
func setupMounts(s spec) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	if s.PrivateTmp {
		if err := privateTmp(s.Keep); err != nil {
			return fmt.Errorf("private /tmp: %w", err)
		}
	}
	ops := planBinds(s)
	for _, op := range ops {
		if err := unix.Mount(op.path, op.path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			if op.rw && !op.pin {
				continue // left read-only: safe, if less useful
			}
			return fmt.Errorf("bind %s: %w", op.path, err)
		}
	}
	if err := remountAll(ops); err != nil {
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
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("fresh /proc: %w", err)
	}
	return nil
}

// planBinds resolves the spec's paths (missing ones are skipped) and orders
// them shallow to deep, read-write before read-only at the same path, so a
// deeper or read-only bind lands on top.
func planBinds(s spec) []bindOp {
	var ops []bindOp
	add := func(paths []string, rw, pin bool) {
		for _, p := range paths {
			if r, err := filepath.EvalSymlinks(p); err == nil {
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
	return strings.Count(p, "/")
}

// wantWritable: a mount point is writable when the deepest bind at or
// above it (pins aside) is a writable one; with none, it is read-only.
func wantWritable(point string, ops []bindOp) bool {
	rw, best := false, -1
	for _, op := range ops {
		if !op.pin && paths.Within(op.path, point) && depth(op.path) >= best {
			rw, best = op.rw, depth(op.path)
		}
	}
	return rw
}

// mountEntry is one line of /proc/self/mountinfo.
type mountEntry struct {
	point string
	flags uintptr // MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_NOSYMFOLLOW
}

// remountAll gives every mount the read-only flag it should have. A mount
// that cannot be remounted read-only (other than one hidden from us) is an
// error; one that cannot be made writable just stays read-only.
func remountAll(ops []bindOp) error {
	mounts, err := readMountinfo()
	if err != nil {
		return err
	}
	for _, m := range mounts {
		want := m.flags | unix.MS_NOSUID
		rw := wantWritable(m.point, ops)
		if rw {
			want &^= unix.MS_RDONLY
		} else {
			want |= unix.MS_RDONLY
		}
		if want == m.flags {
			continue
		}
		err := unix.Mount("", m.point, "", unix.MS_BIND|unix.MS_REMOUNT|want, "")
		switch {
		case err == nil, rw:
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.ENOENT):
			// Not reachable by path, so not reachable by the command.
		default:
			return fmt.Errorf("remount %s read-only: %w", m.point, err)
		}
	}
	return nil
}

func readMountinfo() ([]mountEntry, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - fstype source superoptions
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		out = append(out, mountEntry{point: unescapeMountinfo(fields[4]), flags: mountFlags(fields[5])})
	}
	return out, sc.Err()
}

// mountFlags turns a mount's own options (mountinfo's sixth field) into
// the flags a bind remount must repeat: leaving out a flag the kernel
// locked would make the remount fail.
func mountFlags(opts string) uintptr {
	var f uintptr
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "ro":
			f |= unix.MS_RDONLY
		case "nosuid":
			f |= unix.MS_NOSUID
		case "nodev":
			f |= unix.MS_NODEV
		case "noexec":
			f |= unix.MS_NOEXEC
		case "nosymfollow":
			f |= unix.MS_NOSYMFOLLOW
		}
		// atime flags are kept by a remount that names none.
	}
	return f
}

// unescapeMountinfo decodes the octal escapes (\040 for a space) the
// kernel writes for whitespace and backslashes in paths.
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mask makes p unreadable: an empty, mode-000, read-only tmpfs over a
// directory, /dev/null bound read-only over anything else.
func mask(p string) error {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil // nothing there to read
	}
	fi, err := os.Stat(r)
	if err != nil {
		return nil
	}
	const flags = unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC
	if fi.IsDir() {
		if err := unix.Mount("tmpfs", r, "tmpfs", flags|unix.MS_RDONLY, "mode=000,size=4k"); err != nil {
			return fmt.Errorf("hide %s: %w", r, err)
		}
		return nil
	}
	if err := unix.Mount("/dev/null", r, "", unix.MS_BIND, ""); err != nil {
		return fmt.Errorf("hide %s: %w", r, err)
	}
	if err := unix.Mount("", r, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("hide %s read-only: %w", r, err)
	}
	return nil
}
