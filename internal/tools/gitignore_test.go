package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestIgnoreRulesFromEnclosingRepository(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{
		".git/HEAD":           "x",
		".gitignore":          "node_modules/\n/svc/secret.txt\n",
		"svc/a.go":            "",
		"svc/secret.txt":      "",
		"svc/node_modules/m":  "",
		"svc/sub/secret.txt":  "",
		"svc/sub/.gitignore":  "!keep.tmp\n*.tmp\n",
		"svc/sub/x.tmp":       "",
		"svc/sub/keep.tmp.go": "",
	})
	ws, err := NewWorkspace(filepath.Join(repo, "svc"))
	if err != nil {
		t.Fatal(err)
	}
	list := builtin(t, ws, "list")
	want := "./\n  a.go\n  sub/\n    .gitignore\n    keep.tmp.go\n    secret.txt\n"
	if got := mustOK(t, call(t, list, `{}`)); got != want {
		t.Fatalf("workspace inside a repository: got\n%s\nwant\n%s", got, want)
	}
	// A directory asked for by name is listed even though it is ignored.
	if got := mustOK(t, call(t, list, map[string]any{"path": "node_modules"})); got != "node_modules/\n  m\n" {
		t.Fatalf("ignored directory by name: %q", got)
	}
}

func TestIgnoreRulesStopAtWorkspaceOutsideRepositories(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	writeFiles(t, parent, map[string]string{
		".gitignore":          "*.go\n", // above the workspace, no repository: not applied
		"ws/.gitignore":       "/sub/deep/a.go\nz.txt\n",
		"ws/a.go":             "",
		"ws/sub/a.go":         "",
		"ws/sub/z.txt":        "",
		"ws/sub/deep/a.go":    "",
		"ws/sub/deep/b.go":    "",
		"ws/sub/deep/.git/x":  "", // .git is always skipped
		"ws/sub/deep/.gitkep": "",
	})
	ws, err := NewWorkspace(filepath.Join(parent, "ws"))
	if err != nil {
		t.Fatal(err)
	}
	// Listing a subdirectory still applies the workspace root's anchored rule.
	got := mustOK(t, call(t, builtin(t, ws, "list"), map[string]any{"path": "sub"}))
	if want := "sub/\n  a.go\n  deep/\n    .gitkep\n    b.go\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestIgnoreRulesSkipPathMatchesWalk(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, ignoreFixture)
	rules := newIgnoreRules(ws.Root, ws.Root)
	for p, want := range map[string]bool{
		"a.go": false, "app.log": true, "keep.log": false, "root-only.txt": true,
		"build/out.txt": true, "src/root-only.txt": false, "src/gen/x.go": true,
		"src/y.tmp": true, "src/util/u.go": false, ".git/HEAD": true, ".hidden/h.txt": false,
	} {
		if got := rules.skipPath(filepath.Join(ws.Root, p)); got != want {
			t.Errorf("skipPath(%s) = %v, want %v", p, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(ws.Root, ".git")); err != nil {
		t.Fatal(err)
	}
}

func TestCoderStateIsNeverSearched(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"main.go":                  "needle\n",
		".coder/sessions/s1.json":  "needle\n",
		".coder/coder.db":          "needle\n",
		".coder/commands/fix.md":   "needle\n",
		"sub/.coder/sessions/x.md": "needle\n", // only the state dir shape matters
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range Builtins(Env{Workspace: ws}) {
		var args string
		switch tool.Name() {
		case "grep":
			args = `{"pattern":"needle"}`
		case "glob":
			args = `{"pattern":"**/*"}`
		case "list":
			args = `{"depth":5}`
		default:
			continue
		}
		res, err := execRaw(context.Background(), tool, args)
		if err != nil || !res.OK {
			t.Fatalf("%s: %v %+v", tool.Name(), err, res)
		}
		if strings.Contains(res.Content, "s1.json") || strings.Contains(res.Content, "coder.db") || strings.Contains(res.Content, "sessions/x.md") {
			t.Errorf("%s shows coder's session state:\n%s", tool.Name(), res.Content)
		}
		if tool.Name() != "list" && !strings.Contains(res.Content, "fix.md") {
			t.Errorf("%s hides the user's .coder/commands:\n%s", tool.Name(), res.Content)
		}
	}
}

func TestWalkStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(dir, "f"+strings.Repeat("x", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	seen := 0
	var mu sync.Mutex
	err := walkTree(ctx, dir, newIgnoreRules(dir, dir), 0, func(string, fs.DirEntry) error {
		mu.Lock()
		defer mu.Unlock()
		if seen++; seen == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("walk after cancel returned %v (saw %d entries)", err, seen)
	}
}
