package sandbox

import (
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
// hidden ones keep their flags there, and the other tests cover it.)
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
