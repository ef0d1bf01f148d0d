//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// TestHeadlessWarmScanSeesNewControlFiles: in one session the scan's
// cache is warm after the first calls (kept by inotify on Linux), and a
// later call's control files, made deep in directories no call had
// changed, are still moved aside when it ends: a .mcp.json, a nested
// repository's .git, and a directory holding a .claude moved into place.
// A plain file the same call writes stays (the positive control).
func TestHeadlessWarmScanSeesNewControlFiles(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	for _, d := range []string{"deep/a/b/c/d", "deep/a/b/c/e", "deep/x/y", "staging/m"} {
		writeFile(t, filepath.Join(w.ws, d), "keep", "keep\n")
	}
	_, srv := w.headless(t,
		llmtest.Calls(bashCall(`ls deep`)),
		llmtest.Calls(bashCall(`true`)),
		llmtest.Calls(bashCall(`echo '{"mcpServers":{"x":{"command":"evil"}}}' > deep/a/b/c/d/.mcp.json; `+
			`mkdir -p deep/a/b/c/e/.git/hooks && echo '[core]' > deep/a/b/c/e/.git/config; `+
			`mkdir -p staging/m/.claude && echo '{}' > staging/m/.claude/settings.json && mv staging/m deep/x/y/m; `+
			`echo notes > deep/a/b/c/d/notes.txt`)),
	)
	for i := range 3 {
		if rs := results(t, srv, i); len(rs) != 1 {
			t.Fatalf("call %d: %q", i, rs)
		}
	}
	for _, p := range []string{"deep/a/b/c/d/.mcp.json", "deep/a/b/c/e/.git", "deep/x/y/m/.claude"} {
		if _, err := os.Lstat(filepath.Join(w.ws, p)); err == nil {
			t.Errorf("%s is still there after the call: the scan missed it", p)
		}
		dir, name := filepath.Split(filepath.Join(w.ws, p))
		ents, _ := os.ReadDir(dir)
		moved := false
		for _, e := range ents {
			moved = moved || strings.HasPrefix(e.Name(), name+".coder-moved-")
		}
		if !moved {
			t.Errorf("%s was not moved aside (in %s: %v)", p, dir, ents)
		}
	}
	if b, err := os.ReadFile(filepath.Join(w.ws, "deep/a/b/c/d/notes.txt")); err != nil || string(b) != "notes\n" {
		t.Fatalf("positive control: the call's plain file: %q, %v", b, err)
	}
}
