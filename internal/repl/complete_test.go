package repl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPathCandidates(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"notes.txt", "nothing.md", ".hidden", "src/main.go", ".git/config"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(pathCandidates(dir, "no"), " "); got != "notes.txt nothing.md" {
		t.Fatalf("no: %q", got)
	}
	if got := strings.Join(pathCandidates(dir, "s"), " "); got != "src/" {
		t.Fatalf("s: %q", got)
	}
	if got := strings.Join(pathCandidates(dir, "src/m"), " "); got != "src/main.go" {
		t.Fatalf("src/m: %q", got)
	}
	if got := strings.Join(pathCandidates(dir, "."), " "); got != ".hidden" {
		t.Fatalf(".: %q", got)
	}
}
