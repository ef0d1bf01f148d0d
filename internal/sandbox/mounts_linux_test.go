package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/coder-agent/coder/internal/paths"
)

// Inside the full level every mount of the command's mount namespace is
// read-only and nosuid — the host's own (/, /sys, cgroups, …), the
// sandbox's binds, and the mounts they hide — except the writable roots
// and what lies below them, and the sandbox's fresh /proc and /dev. The
// writable roots are writable. (Without mount_setattr, kernels before
// 5.12, the helper remounts each mount it can reach by its path; the
// hidden ones keep their flags there: TestMountsRemountedOneByOneAreReadOnly.)
func TestEveryMountButTheWritableRootsIsReadOnly(t *testing.T) {
	needFull(t)
	if !haveMountSetattr() {
		t.Skip("no mount_setattr on this kernel")
	}
	w := newWorld(t)
	p := w.profile(LevelFull)
	res := run(t, p, "cat /proc/self/mountinfo")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	writable := []string{resolved(w.ws), resolved(w.tmp), resolved(filepath.Join(w.home, ".cache"))}
	seen := map[string]bool{}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		point, opts := f[4], strings.Split(f[5], ",")
		if point == "/proc" || paths.Within("/proc", point) || point == "/dev" || paths.Within("/dev", point) {
			continue
		}
		if !slices.Contains(opts, "nosuid") {
			t.Errorf("%s is not nosuid: %s", point, f[5])
		}
		rw := slices.ContainsFunc(writable, func(r string) bool { return paths.Within(r, point) })
		if rw {
			if point == writable[0] || point == writable[2] {
				seen[point] = seen[point] || slices.Contains(opts, "rw")
			}
			continue
		}
		checked++
		if !slices.Contains(opts, "ro") {
			t.Errorf("%s is writable in the sandbox: %s", point, f[5])
		}
	}
	if checked == 0 {
		t.Fatalf("no read-only mount seen:\n%s", res.stdout)
	}
	// Positive control: the workspace and the writable cache are mounts of
	// their own, and writable ones.
	for _, r := range []string{writable[0], writable[2]} {
		if !seen[r] {
			t.Errorf("writable root %s has no writable mount:\n%s", r, res.stdout)
		}
	}
}

// haveMountSetattr: the syscall exists (an empty path is refused, not
// unknown).
func haveMountSetattr() bool {
	_, _, errno := syscall.Syscall6(442, 0, 0, 0, 0, 0, 0)
	return errno != syscall.ENOSYS
}

// TestMountsRemountedOneByOneAreReadOnly runs the full level the way
// kernels without mount_setattr (before 5.12) do, a bind remount per mount
// (Spec.RemountEach), on any kernel: every mount the command can reach by
// its path is read-only and nosuid, but the writable roots, which are
// writable. A write outside the workspace fails on the read-only mount
// itself (EROFS: the mount, not Landlock, refused it); inside, it works.
func TestMountsRemountedOneByOneAreReadOnly(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	p := w.profile(LevelFull)
	p.remountEach = true
	const mark = "--- writes ---"
	outside := filepath.Join(w.home, "pwned") // the home is kept in view, read-only
	res := run(t, p, `cat /proc/self/mountinfo; echo '`+mark+`'; touch `+outside+
		`; touch `+filepath.Join(w.ws, "made")+` && echo inside-ok`)
	table, writes, ok := strings.Cut(res.stdout, mark)
	if !ok {
		t.Fatalf("exit %d: %s\n%s", res.code, res.stdout, res.stderr)
	}
	type entry struct {
		point string
		opts  []string
	}
	var mounts []entry
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		if f := strings.Fields(line); len(f) >= 6 {
			mounts = append(mounts, entry{f[4], strings.Split(f[5], ",")})
		}
	}
	// A mount is reachable by its path unless a later one sits on it or
	// on a directory above it.
	hidden := func(i int) bool {
		for _, m := range mounts[i+1:] {
			if paths.Within(m.point, mounts[i].point) {
				return true
			}
		}
		return false
	}
	writable := []string{resolved(w.ws), resolved(w.tmp), resolved(filepath.Join(w.home, ".cache"))}
	seen, checked, hiddenRW := map[string]bool{}, 0, 0
	for i, m := range mounts {
		if m.point == "/proc" || paths.Within("/proc", m.point) || m.point == "/dev" || paths.Within("/dev", m.point) {
			continue
		}
		if hidden(i) {
			if slices.Contains(m.opts, "rw") {
				hiddenRW++
			}
			continue
		}
		if !slices.Contains(m.opts, "nosuid") {
			t.Errorf("%s is not nosuid: %v", m.point, m.opts)
		}
		if slices.ContainsFunc(writable, func(r string) bool { return paths.Within(r, m.point) }) {
			seen[m.point] = seen[m.point] || slices.Contains(m.opts, "rw")
			continue
		}
		checked++
		if !slices.Contains(m.opts, "ro") {
			t.Errorf("%s is writable in the sandbox: %v", m.point, m.opts)
		}
	}
	if checked == 0 {
		t.Fatalf("no read-only mount seen:\n%s", table)
	}
	if !strings.Contains(res.stderr, "Read-only file system") {
		t.Errorf("writing outside the workspace did not fail on a read-only mount: %q", res.stderr)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("a file was made outside the workspace")
	}
	// Positive controls: the workspace and the writable cache are writable
	// mounts of their own, and a file can be made in the workspace.
	for _, r := range []string{writable[0], writable[2]} {
		if !seen[r] {
			t.Errorf("writable root %s has no writable mount:\n%s", r, table)
		}
	}
	if _, err := os.Stat(filepath.Join(w.ws, "made")); err != nil || !strings.Contains(writes, "inside-ok") {
		t.Errorf("no file made in the workspace (%v): %s %s", err, writes, res.stderr)
	}
	// The per-mount path ran, not the recursive call, which leaves no
	// mount writable, hidden or not: the workspace's bind under the
	// private /tmp, hidden by its writable bind, kept its flags.
	switch {
	case hiddenRW > 0:
	case haveMountSetattr() && paths.Within("/tmp", resolved(w.ws)):
		t.Errorf("every hidden mount is read-only: the mounts were not remounted one by one:\n%s", table)
	default:
		t.Logf("no hidden writable mount here to tell the two ways apart:\n%s", table)
	}
}
