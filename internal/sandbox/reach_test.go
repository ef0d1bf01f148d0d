//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildReach builds testdata/reach, a program that tries to read its
// parent's and its own child's memory and environment.
func buildReach(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a program")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not installed")
	}
	bin := filepath.Join(t.TempDir(), "reach")
	if out, err := exec.Command(gobin, "build", "-o", bin, "./testdata/reach").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestCommandCannotReachTheHelper: the helper's runtime threads keep the
// user namespace's capabilities (only the thread that starts the command
// drops them), so the command must not reach the helper at all: reading
// its environment or memory, attaching to it with ptrace and
// process_vm_readv all fail, while the same on a process the command
// started itself works (the positive control). The command has no
// capability (LevelFull), no_new_privs, and cannot write outside. Without
// namespaces (LevelLandlock) the helper is outside the command's Landlock
// domain, which is what keeps the command from attaching to it.
func TestCommandCannotReachTheHelper(t *testing.T) {
	reach := buildReach(t)
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil && strings.TrimSpace(string(b)) != "0" {
		// Yama refuses mem, ptrace and process_vm_readv of a process that
		// is not a descendant whatever the helper does; reading environ
		// (not under Yama) is then what shows the helper non-dumpable.
		t.Logf("Yama ptrace_scope %s: only the environ check witnesses the dumpable flag", strings.TrimSpace(string(b)))
	}
	for _, l := range levels(t, LevelLandlock) {
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			bin, err := os.ReadFile(reach)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(w.ws, "reach"), bin, 0o755); err != nil {
				t.Fatal(err)
			}
			r := run(t, w.profile(l), "./reach")
			if r.code != 0 {
				t.Fatalf("reach: %+v", r)
			}
			for _, check := range []string{"environ", "mem", "ptrace", "vm_readv"} {
				if !strings.Contains(r.stdout, "child "+check+" ok\n") {
					t.Errorf("control: %s of the command's own child failed:\n%s", check, r.stdout)
				}
				// Without namespaces the helper passes its whole environment
				// on and has no more privileges than the command, and this
				// kernel's Landlock lets a process read (not attach to) one
				// outside its domain: only the attaching checks apply.
				if l != LevelFull && check == "environ" {
					continue
				}
				if !strings.Contains(r.stdout, "parent "+check+" denied") {
					t.Errorf("%s of the helper was not denied:\n%s", check, r.stdout)
				}
			}
			if l == LevelFull && !strings.Contains(r.stdout, "parent pid 1\n") {
				t.Errorf("the command's parent is not PID 1:\n%s", r.stdout)
			}
			status := run(t, w.profile(l), "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs):' /proc/self/status").stdout
			want := []string{"NoNewPrivs:\t1"}
			if l == LevelFull {
				want = append(want, "CapEff:\t0000000000000000", "CapPrm:\t0000000000000000", "CapBnd:\t0000000000000000")
			}
			for _, line := range want {
				if !strings.Contains(status, line+"\n") {
					t.Errorf("the command's status lacks %q:\n%s", line, status)
				}
			}
			outside, inside := filepath.Join(w.outside, "pwned"), filepath.Join(w.ws, "written")
			r = run(t, w.profile(l), "touch "+outside+"; touch "+inside)
			if _, err := os.Stat(outside); err == nil {
				t.Errorf("the command wrote outside the workspace: %+v", r)
			}
			if _, err := os.Stat(inside); err != nil {
				t.Errorf("control: the command could not write in the workspace: %+v", r)
			}
		})
	}
}
