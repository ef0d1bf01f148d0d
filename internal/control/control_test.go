package control

import "testing"

func TestIs(t *testing.T) {
	for rel, want := range map[string]bool{
		".coder/config.json": true, ".coder": true, ".coder/commands/x.md": true, "./.mcp.json": true,
		".git/config": true, ".git/hooks/pre-commit": true, ".git/hooks": true, ".claude/settings.json": true,
		".claude/skills/a.md": true, "a/../.coder/config.json": true,
		// At any depth: a nested repository, a sub-directory coder starts in.
		"src/.coder/x": true, "pkg/.coder/config.json": true, "pkg/.claude/settings.local.json": true,
		"web/.mcp.json": true, "vendor/lib/.git/config": true, "vendor/lib/.git/hooks/post-checkout": true,
		// git's redirections: the .git entry itself (a "gitdir:" file), a
		// common directory, submodules' and worktrees' git directories.
		".git": true, "vendor/lib/.git": true, ".git/commondir": true, ".git/config.worktree": true,
		".git/modules/lib/config": true, ".git/modules/lib/hooks/pre-commit": true,
		".git/modules/a/b/config": true, ".git/modules/lib/modules/inner/config": true,
		".git/worktrees/w/commondir": true, ".git/worktrees/w/config.worktree": true,
		".git/HEAD": false, ".git/index": false, ".git/objects/ab/cd": false, ".git/refs/heads/main": false,
		".git/modules/lib/objects/ab": false, ".git/modules/lib/HEAD": false, ".git/worktrees/w/HEAD": false,
		".git/worktrees": false, ".git/modules": false, ".gitignore": false, ".coderx/a": false,
		"mcp.json": false, "src/main.go": false, ".": false, "../.coder/config.json": false,
	} {
		if Is(rel) != want {
			t.Errorf("Is(%q) = %v, want %v", rel, !want, want)
		}
	}
	if Reason("main.go") != "" || Reason(".git/config") == "" {
		t.Error("Reason")
	}
}

// TestStepWalksGitDirectories: what the sandbox's scan descends into and
// what it protects, step by step.
func TestStepWalksGitDirectories(t *testing.T) {
	for _, c := range []struct {
		path []string
		want Place
	}{
		{[]string{"src", "pkg"}, Tree},
		{[]string{".git"}, GitDir},
		{[]string{".git", "objects"}, Other},
		{[]string{".git", "modules", "a", "b"}, GitModules},
		{[]string{".git", "modules", "a", "refs"}, Other},
		{[]string{".git", "worktrees", "w"}, GitDir},
		{[]string{".git", "worktrees", "w", "modules", "s", "hooks"}, Control},
		{[]string{".claude", "anything"}, Control},
	} {
		p := Tree
		for _, name := range c.path {
			p = Step(p, name)
		}
		if p != c.want {
			t.Errorf("%q: place %d, want %d", c.path, p, c.want)
		}
	}
}
