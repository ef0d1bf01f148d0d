package contextmgr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadRulesBothDirs(t *testing.T) {
	t.Parallel()
	ws, user := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(user, "AGENTS.md"), "user agents\n")
	writeFile(t, filepath.Join(user, "rules.md"), "user rules")
	writeFile(t, filepath.Join(ws, "AGENTS.md"), "project agents")
	writeFile(t, filepath.Join(ws, "CLAUDE.md"), "  \n") // blank: skipped
	writeFile(t, filepath.Join(ws, ".coder", "rules.md"), "project rules")

	got, _ := LoadRules(ws, user)
	want := []RulesFile{
		{Name: filepath.Join(user, "AGENTS.md"), Content: "user agents", Size: 12},
		{Name: filepath.Join(user, "rules.md"), Content: "user rules", Size: 10},
		{Name: "AGENTS.md", Content: "project agents", Size: 14},
		{Name: ".coder/rules.md", Content: "project rules", Size: 13},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d files %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("file %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestLoadRulesDedup(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "AGENTS.md"), "same rules")
	if err := os.Symlink("AGENTS.md", filepath.Join(ws, "CLAUDE.md")); err != nil {
		t.Skip(err)
	}
	// The workspace is also the user config dir: each file is read once.
	got, _ := LoadRules(ws, ws)
	if len(got) != 1 || got[0].Name != "AGENTS.md" {
		t.Errorf("got %+v, want only AGENTS.md", got)
	}
}

func TestLoadRulesTruncates(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	big := strings.Repeat(line, 1000) // 100 000 bytes
	writeFile(t, filepath.Join(ws, "AGENTS.md"), big)
	got, _ := LoadRules(ws, "")
	if len(got) != 1 {
		t.Fatalf("got %d files", len(got))
	}
	f := got[0]
	if !f.Truncated || f.Size != int64(len(big)) || len(f.Content) > MaxRulesBytes {
		t.Errorf("Truncated=%v Size=%d len=%d", f.Truncated, f.Size, len(f.Content))
	}
	if (len(f.Content)+1)%len(line) != 0 { // whole lines, the last newline trimmed
		t.Errorf("not cut at a line end: ...%q", f.Content[len(f.Content)-20:])
	}
	if s := rulesSection(got); !strings.Contains(s, "[truncated: first") {
		t.Errorf("no truncation note in %q", s[len(s)-200:])
	}
}

func TestLoadRulesNone(t *testing.T) {
	t.Parallel()
	if got, _ := LoadRules(t.TempDir(), ""); len(got) != 0 {
		t.Errorf("got %+v", got)
	}
	if got, _ := LoadRules("", ""); len(got) != 0 {
		t.Errorf("got %+v", got)
	}
}
