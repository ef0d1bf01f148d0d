//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/control"
)

func rels(fs []found) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.rel)
	}
	return out
}

// TestScanFindsControlEntriesAtAnyDepth: nested repositories, submodules'
// and worktrees' git directories, coder's, Claude's and MCP settings at
// any depth, a .git file's target inside the tree; nothing through a
// symlink; the workspace's secrets by pattern, examples excepted.
func TestScanFindsControlEntriesAtAnyDepth(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	for _, f := range []string{
		".git/config", ".git/hooks/pre-commit", ".git/HEAD", ".git/objects/ab/cd",
		".git/modules/lib/config", ".git/modules/lib/objects/x", ".git/modules/a/b/hooks/x",
		".git/worktrees/w/commondir", ".git/worktrees/w/HEAD",
		".mcp.json", "pkg/.coder/config.json", "pkg/.claude/settings.local.json", "web/app/.mcp.json",
		"vendor/lib/.git/config", "vendor/lib/src/x.go", "g2/config", "g2/HEAD",
		".env", ".env.example", "pkg/.env.local", "certs/server.pem", "src/id_rsa", "src/id_rsa.pub",
	} {
		writeTestFile(t, filepath.Join(ws, f), "x")
	}
	writeTestFile(t, filepath.Join(ws, "sub/.git"), "gitdir: ../g2\n") // a pointer inside the tree
	writeTestFile(t, filepath.Join(outside, "deep/.mcp.json"), "x")
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	patterns := []string{".env", ".env.*", "!.env.example", "*.pem", "id_rsa*", "!id_*.pub"}
	tr, err := scanRoot(ws, control.Tree, patterns)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".git", ".git/config", ".git/hooks", ".git/modules/a/b/hooks", ".git/modules/lib/config",
		".git/worktrees/w/commondir", ".mcp.json", "g2/config", "pkg/.claude", "pkg/.coder", "sub/.git",
		"vendor/lib/.git", "vendor/lib/.git/config", "web/app/.mcp.json"}
	if got := rels(tr.control); !slices.Equal(got, want) {
		t.Errorf("control entries:\n got %q\nwant %q", got, want)
	}
	if got := rels(tr.secrets); !slices.Equal(got, []string{".env", "certs/server.pem", "pkg/.env.local", "src/id_rsa"}) {
		t.Errorf("secrets: %q", got)
	}
}

// TestScanCacheSeesEveryChange: a rescan reads only changed directories,
// yet misses no new entry, not even in a directory whose mtime was set
// back to what the cache holds (its change time still moved).
func TestScanCacheSeesEveryChange(t *testing.T) {
	ws := t.TempDir()
	writeTestFile(t, filepath.Join(ws, "a/b/c/keep"), "x")
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{"a/b/c", "a/b", "a", "."} {
		if err := os.Chtimes(filepath.Join(ws, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
	scan := func() []string {
		t.Helper()
		tr, err := scanRoot(ws, control.Tree, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rels(tr.control)
	}
	if got := scan(); len(got) != 0 {
		t.Fatalf("before: %q", got)
	}
	// Cached now only if the change times are old enough: wait them out.
	time.Sleep(cacheSlop + 100*time.Millisecond)
	_ = scan()
	deep := filepath.Join(ws, "a/b/c")
	writeTestFile(t, filepath.Join(deep, ".mcp.json"), "{}")
	if err := os.Chtimes(deep, old, old); err != nil { // mtime set back
		t.Fatal(err)
	}
	if got := scan(); !slices.Equal(got, []string{"a/b/c/.mcp.json"}) {
		t.Fatalf("after: %q", got)
	}
	if err := os.Rename(filepath.Join(ws, "a/b"), filepath.Join(ws, "a/x")); err != nil {
		t.Fatal(err)
	}
	if got := scan(); !slices.Equal(got, []string{"a/x/c/.mcp.json"}) {
		t.Fatalf("after a rename: %q", got)
	}
}

// TestCoverageSortsWhatTheMountsDo: .git directories pinned, the rest
// read-only, a symlinked entry left to the restore, patterns masked.
func TestCoverageSortsWhatTheMountsDo(t *testing.T) {
	ws := t.TempDir()
	gitRepo(t, ws)
	writeTestFile(t, filepath.Join(ws, "sub/.git"), "gitdir: ../.git/modules/sub\n")
	writeTestFile(t, filepath.Join(ws, ".git/modules/sub/config"), "x")
	writeTestFile(t, filepath.Join(ws, ".env"), "SECRET=1\n")
	if err := os.Remove(filepath.Join(ws, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("shared/mcp.json", filepath.Join(ws, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	c, err := Profile{Workspace: ws, DenyReadPatterns: []string{".env"}}.Coverage()
	if err != nil {
		t.Fatal(err)
	}
	in := func(r ...string) []string {
		var out []string
		for _, x := range r {
			out = append(out, filepath.Join(ws, x))
		}
		return out
	}
	if !slices.Equal(c.Pinned, in(".git")) || !slices.Equal(c.Unbound, in(".mcp.json")) || !slices.Equal(c.Masked, in(".env")) ||
		!slices.Equal(c.ReadOnly, in(".coder", ".git/config", ".git/hooks", ".git/modules/sub/config", "sub/.git")) {
		t.Errorf("coverage: %+v", c)
	}
}

// TestPatternsMatchAsTheGlobsSay: the quick forms agree with the globs.
func TestPatternsMatchAsTheGlobsSay(t *testing.T) {
	s := &scanner{patterns: compilePatterns([]string{".env", ".env.*", "!.env.example", "*.pem", "id_rsa*",
		"!id_*.pub", "k?y", "conf/**/*.secret", "/top.txt"})}
	for rel, want := range map[string]bool{
		".env": true, "a/b/.env": true, ".env.local": true, "x/.env.example": false, ".envrc": false,
		"certs/a.pem": true, "a.pem.txt": false, "id_rsa": true, "id_rsa_work": true, "id_rsa.pub": false,
		"key": true, "kxy": true, "keys": false, "conf/a/b/c.secret": true, "other/c.secret": false,
		"top.txt": true, "sub/top.txt": false, "main.go": false,
	} {
		if got := s.matches(rel); got != want {
			t.Errorf("matches(%q) = %v, want %v", rel, got, want)
		}
	}
}
