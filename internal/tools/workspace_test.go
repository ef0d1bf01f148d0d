package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// boundaryFixture is a workspace next to an outside directory, with symlinks
// crossing the boundary both ways.
func boundaryFixture(t *testing.T) (ws *Workspace, outside string) {
	t.Helper()
	ws = newWS(t)
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, ws.Root, map[string]string{"a.txt": "inside\n", "sub/b.txt": "b\n"})
	writeFiles(t, outside, map[string]string{"secret.txt": "secret\n"})
	links := map[string]string{
		"out":   outside,
		"in":    filepath.Join(ws.Root, "sub"),
		"dang":  filepath.Join(outside, "new.txt"),
		"loop1": filepath.Join(ws.Root, "loop2"),
		"loop2": filepath.Join(ws.Root, "loop1"),
		"rel":   "../" + filepath.Base(outside),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ws.Root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func TestResolve(t *testing.T) {
	t.Parallel()
	ws, outside := boundaryFixture(t)
	parent := filepath.Dir(ws.Root)
	home, _ := os.UserHomeDir()
	tests := []struct {
		path   string
		abs    string
		inside bool
	}{
		{".", ws.Root, true},
		{"a.txt", filepath.Join(ws.Root, "a.txt"), true},
		{"sub/../a.txt", filepath.Join(ws.Root, "a.txt"), true},
		{filepath.Join(ws.Root, "new/file.go"), filepath.Join(ws.Root, "new/file.go"), true},
		{"in/x.go", filepath.Join(ws.Root, "sub/x.go"), true},
		{"..", parent, false},
		{"../other/x", filepath.Join(parent, "other/x"), false},
		{"sub/../../x", filepath.Join(parent, "x"), false},
		{"/etc/passwd", "/etc/passwd", false},
		{"out/secret.txt", filepath.Join(outside, "secret.txt"), false},
		{"out/not/yet/there.txt", filepath.Join(outside, "not/yet/there.txt"), false},
		{"dang", filepath.Join(outside, "new.txt"), false},
		{"rel/secret.txt", filepath.Join(outside, "secret.txt"), false},
		{"~", home, home == ws.Root},
	}
	for _, tt := range tests {
		abs, inside, err := ws.Resolve(tt.path)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.path, err)
			continue
		}
		if abs != tt.abs || inside != tt.inside {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tt.path, abs, inside, tt.abs, tt.inside)
		}
	}
	for _, bad := range []string{"", "  ", "loop1/x"} {
		if _, _, err := ws.Resolve(bad); err == nil {
			t.Errorf("Resolve(%q): no error", bad)
		}
	}
}

func TestWorkspaceRel(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	for abs, want := range map[string]string{
		ws.Root:                             ".",
		filepath.Join(ws.Root, "a/b.go"):    "a/b.go",
		"/etc/passwd":                       "/etc/passwd",
		filepath.Dir(ws.Root):               filepath.Dir(ws.Root),
		ws.Root + "-sibling/x":              ws.Root + "-sibling/x",
		filepath.Join(ws.Root, "..foo/bar"): "..foo/bar",
	} {
		if got := ws.Rel(abs); got != want {
			t.Errorf("Rel(%q) = %q, want %q", abs, got, want)
		}
	}
}

func TestNewWorkspace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(link)
	if err != nil {
		t.Fatal(err)
	}
	if real, _ := filepath.EvalSymlinks(dir); ws.Root != real {
		t.Fatalf("Root = %q, want symlinks resolved %q", ws.Root, real)
	}
	writeFiles(t, dir, map[string]string{"f": "x"})
	if _, err := NewWorkspace(filepath.Join(dir, "f")); err == nil {
		t.Fatal("a file accepted as workspace root")
	}
	if _, err := NewWorkspace(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing directory accepted as workspace root")
	}
}

func TestFileToolsRefuseOutsidePathsUnlessApproved(t *testing.T) {
	t.Parallel()
	ws, outside := boundaryFixture(t)
	secret := filepath.Join(outside, "secret.txt")
	tests := []struct {
		tool string
		args map[string]any
	}{
		{"read", map[string]any{"path": "../" + filepath.Base(outside) + "/secret.txt"}},
		{"read", map[string]any{"path": "out/secret.txt"}},
		{"read", map[string]any{"path": secret}},
		{"list", map[string]any{"path": "out"}},
		{"glob", map[string]any{"pattern": "out/*.txt"}},
		{"grep", map[string]any{"pattern": "secret", "path": "out"}},
		{"write", map[string]any{"path": "out/secret.txt", "content": "pwned\n"}},
		{"write", map[string]any{"path": "dang", "content": "pwned\n"}},
		{"edit", map[string]any{"path": "out/secret.txt", "old_string": "secret", "new_string": "pwned"}},
		{"edit", map[string]any{"path": "rel/secret.txt", "old_string": "secret", "new_string": "pwned"}},
	}
	for _, tt := range tests {
		tool := builtin(t, ws, tt.tool)
		raw, _ := json.Marshal(tt.args)
		reasons := decodeCall(t, tool, string(raw)).Reasons
		if len(reasons) != 1 || !strings.HasPrefix(reasons[0], "path outside workspace: "+outside) {
			t.Errorf("%s %s: ApprovalReasons = %q", tt.tool, raw, reasons)
		}
		if msg := failure(t, call(t, tool, tt.args)); !strings.Contains(msg, "outside the workspace") {
			t.Errorf("%s %s: error %q", tt.tool, raw, msg)
		}
	}
	if got := readFile(t, secret); got != "secret\n" {
		t.Fatalf("outside file changed without approval: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("dangling symlink target created without approval")
	}
}

func TestApprovedOutsidePathsWork(t *testing.T) {
	t.Parallel()
	ws, outside := boundaryFixture(t)
	got := mustOK(t, callApproved(t, builtin(t, ws, "read"), map[string]any{"path": "out/secret.txt"}))
	if !strings.Contains(got, "secret") {
		t.Fatalf("read: %q", got)
	}
	res := callApproved(t, builtin(t, ws, "edit"), map[string]any{"path": "out/secret.txt", "old_string": "secret", "new_string": "shared"})
	mustOK(t, res)
	if want := filepath.Join(outside, "secret.txt"); !slices.Equal(res.Changed, []string{want}) {
		t.Fatalf("Changed = %q, want the absolute path %q", res.Changed, want)
	}
	if got := readFile(t, filepath.Join(outside, "secret.txt")); got != "shared\n" {
		t.Fatalf("edit outside: %q", got)
	}
	mustOK(t, callApproved(t, builtin(t, ws, "write"), map[string]any{"path": "dang", "content": "x\n"}))
	if got := readFile(t, filepath.Join(outside, "new.txt")); got != "x\n" {
		t.Fatalf("write through dangling link: %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(ws.Root, "dang")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink itself was replaced")
	}
}

func TestInsidePathsNeedNoApproval(t *testing.T) {
	t.Parallel()
	ws, _ := boundaryFixture(t)
	for _, name := range []string{"read", "write", "edit"} {
		c := decodeCall(t, builtin(t, ws, name), `{"path":"in/b.txt","old_string":"b","new_string":"c","content":""}`)
		if r := c.Reasons; len(r) != 0 {
			t.Errorf("%s: reasons %q for an inside path", name, r)
		}
	}
}

// Writing a control file is a danger request; reading one is not.
func TestControlFilesNeedApproval(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	for _, tt := range []struct {
		tool, args string
		want       bool
	}{
		{"write", `{"path":".coder/config.json","content":"{}"}`, true},
		{"edit", `{"path":".git/config","old_string":"a","new_string":"b"}`, true},
		{"write", `{"path":".mcp.json","content":"{}"}`, true},
		{"patch", `{"patch":"*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch"}`, true},
		// At any depth: coder started in src/ obeys src/.coder.
		{"write", `{"path":"src/.coder/x","content":"x"}`, true},
		{"write", `{"path":"pkg/.claude/settings.local.json","content":"{}"}`, true},
		{"write", `{"path":"src/coder.go","content":"x"}`, false},
		{"read", `{"path":".coder/config.json"}`, false},
	} {
		c := decodeCall(t, builtin(t, ws, tt.tool), tt.args)
		got := len(c.Reasons) == 1 && strings.HasPrefix(c.Reasons[0], "changes a control file")
		if got != tt.want {
			t.Errorf("%s %s: reasons %q", tt.tool, tt.args, c.Reasons)
		}
	}
}
