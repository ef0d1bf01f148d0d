package ignore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

func TestPatternsAndLastMatch(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("# comment\r\n*.log\r\n\r\n!keep.log\nbuild/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var c DirCache
	ps := c.Load(dir)
	if len(ps) != 3 || len(c.Load(dir)) != 3 {
		t.Fatalf("%d patterns", len(ps))
	}
	cases := []struct {
		rel   string
		isDir bool
		want  gitignore.MatchResult
	}{
		{"a.log", false, gitignore.Exclude},
		{"keep.log", false, gitignore.Include}, // the later negation wins
		{"build", true, gitignore.Exclude},
		{"build", false, gitignore.NoMatch}, // dir-only pattern
		{"main.go", false, gitignore.NoMatch},
	}
	for _, c := range cases {
		if got := LastMatch(ps, SplitPath(filepath.Join(dir, c.rel)), c.isDir); got != c.want {
			t.Errorf("%s: %v, want %v", c.rel, got, c.want)
		}
	}
	if ReadPatterns(dir, "missing") != nil {
		t.Error("a missing file has patterns")
	}
}

func TestIsCoderState(t *testing.T) {
	for p, want := range map[string]bool{
		"/w/.coder/sessions":        true,
		"/w/.coder/coder.db":        true,
		"/w/.coder/coder.db-wal":    true,
		"/w/.coder/config.json":     false,
		"/w/.coder/commands/fix.md": false,
		"/w/sessions":               false,
	} {
		if IsCoderState(p) != want {
			t.Errorf("%s: want %v", p, want)
		}
	}
}
