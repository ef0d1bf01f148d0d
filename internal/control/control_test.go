package control

import "testing"

func TestIs(t *testing.T) {
	for rel, want := range map[string]bool{
		".coder/config.json": true, ".coder": true, ".coder/commands/x.md": true, "./.mcp.json": true,
		".git/config": true, ".git/hooks/pre-commit": true, ".git/hooks": true, ".claude/settings.json": true,
		".git/HEAD": false, ".gitignore": false, "src/.coder/x": false, ".coderx/a": false, "mcp.json": false,
		".claude/skills/a.md": false, "a/../.coder/config.json": true,
	} {
		if Is(rel) != want {
			t.Errorf("Is(%q) = %v, want %v", rel, !want, want)
		}
	}
	if Reason("main.go") != "" || Reason(".git/config") == "" {
		t.Error("Reason")
	}
}
