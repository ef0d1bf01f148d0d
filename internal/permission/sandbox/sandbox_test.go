package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMain lets the test binary act as the helper, as coder's main does.
func TestMain(m *testing.M) {
	MaybeRunHelper()
	os.Exit(m.Run())
}

func TestHelperArgsRoundTrip(t *testing.T) {
	args := helperArgs(Policy{ReadOnly: true, Writable: []string{"/a", "/b"}}, "/bin/bash", "ls -la")
	if args[0] != HelperArg {
		t.Fatalf("first argument = %q", args[0])
	}
	rw, argv, err := parseHelperArgs(args[1:])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rw, []string{"/a", "/b"}) || !slices.Equal(argv, []string{"/bin/bash", "-c", "ls -la"}) {
		t.Errorf("parsed %q %q", rw, argv)
	}
	for _, bad := range [][]string{{"--rw"}, {"--"}, {"--x", "--", "sh"}, {"--ro"}} {
		if _, _, err := parseHelperArgs(bad); err == nil {
			t.Errorf("parseHelperArgs(%q): no error", bad)
		}
	}
}

func TestPolicies(t *testing.T) {
	if p := PlanPolicy(); !p.ReadOnly || !slices.Contains(p.Writable, os.TempDir()) {
		t.Errorf("PlanPolicy = %+v", p)
	}
	if p := BuildPolicy("/ws"); p.ReadOnly || p.Writable[0] != "/ws" {
		t.Errorf("BuildPolicy = %+v", p)
	}
	if w := (Policy{ReadOnly: true}).writable(); !slices.Equal(w, TempDirs()) {
		t.Errorf("read-only default writable = %q", w)
	}
}

// TestSandboxConfinesWrites runs commands through the helper: writes land
// only in the writable directory; reads and /dev/null still work.
func TestSandboxConfinesWrites(t *testing.T) {
	if ok, why := Supported(); !ok {
		t.Skip(why)
	}
	base := t.TempDir()
	allowed, denied := filepath.Join(base, "allowed"), filepath.Join(base, "denied")
	for _, d := range []string{allowed, denied} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(denied, "readme"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	policy := Policy{ReadOnly: true, Writable: []string{allowed}}
	run := func(command string) (string, error) {
		cmd, err := Command(context.Background(), policy, "/bin/sh", command, WithExecutable(exe))
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	tests := []struct {
		command string
		ok      bool
	}{
		{"touch " + denied + "/x", false},
		{"echo hi > " + denied + "/readme", false},
		{"rm " + denied + "/readme", false},
		{"touch " + allowed + "/y", true},
		{"cat " + denied + "/readme", true},
		{"echo discarded > /dev/null", true},
		{"mkdir " + allowed + "/a " + allowed + "/b && touch " + allowed + "/a/f && mv " + allowed + "/a/f " + allowed + "/b/f", true},
		{"sh -c 'touch " + denied + "/child'", false},
	}
	for _, tt := range tests {
		out, err := run(tt.command)
		if tt.ok && err != nil {
			t.Errorf("%s: %v\n%s", tt.command, err, out)
		}
		if !tt.ok && (err == nil || !strings.Contains(strings.ToLower(out), "permission denied")) {
			t.Errorf("%s: want permission denied, got err=%v out=%q", tt.command, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(allowed, "y")); err != nil {
		t.Errorf("allowed write missing: %v", err)
	}
	if _, err := os.Stat(filepath.Join(denied, "x")); err == nil {
		t.Error("denied write happened")
	}
}

func TestPlanPolicyKeepsAWorkspaceInsideTempReadOnly(t *testing.T) {
	ws := t.TempDir() // under os.TempDir()
	p, err := PlanPolicyFor(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range p.Writable {
		if contains(resolved(d), resolved(ws)) {
			t.Fatalf("writable %s contains the workspace %s", d, ws)
		}
	}
	if len(p.Env) != 1 || !strings.HasPrefix(p.Env[0], "TMPDIR=") {
		t.Fatalf("no private TMPDIR: %v", p.Env)
	}
	if ok, why := Supported(); !ok {
		t.Skipf("no Landlock: %s", why)
	}
	cmd, err := Command(context.Background(), p, "/bin/sh", `touch "$TMPDIR/ok" && touch `+ws+`/nope`, WithExecutable(os.Args[0]))
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Permission denied") {
		t.Fatalf("write into the workspace was not stopped: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimPrefix(p.Env[0], "TMPDIR="), "ok")); err != nil {
		t.Fatalf("the private TMPDIR was not writable: %v", err)
	}
}
