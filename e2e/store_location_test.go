//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// TestStoreNeverLeavesTheWorkspace: a .coder that is a symbolic link to a
// directory outside (or a storage.dir reached through one) is refused
// with a message naming the link, and nothing is written where it points;
// a real .coder, and a storage.dir that is a real directory, work.
func TestStoreNeverLeavesTheWorkspace(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{llmtest.Text("hello")}})
	env := providerEnv(t, srv, "openai")
	empty := func(t *testing.T, dir string) {
		t.Helper()
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("the store wrote outside the workspace: %v", entries)
		}
	}

	t.Run(".coder is a link", func(t *testing.T) {
		ws, outside := t.TempDir(), t.TempDir()
		if err := os.Symlink(outside, filepath.Join(ws, ".coder")); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"-p", "hi"}, {"sessions"}, {"--continue", "-p", "hi"}} {
			res := run{args: args, env: env, dir: ws}.exec(t)
			if res.code == 0 || !strings.Contains(res.stderr, ".coder is a symbolic link") || !strings.Contains(res.stderr, outside) {
				t.Fatalf("coder %v: not refused with a clear message: %+v", args, res)
			}
			empty(t, outside)
		}
	})

	t.Run("a directory on the way is a link", func(t *testing.T) {
		ws, outside := t.TempDir(), t.TempDir()
		writeConfig(t, ws, `{"storage": {"dir": "state/store"}}`)
		if err := os.Symlink(outside, filepath.Join(ws, "state")); err != nil {
			t.Fatal(err)
		}
		res := run{args: []string{"--trust", "-p", "hi"}, env: env, dir: ws}.exec(t)
		if res.code == 0 || !strings.Contains(res.stderr, "state is a symbolic link") {
			t.Fatalf("not refused: %+v", res)
		}
		empty(t, outside)
	})

	t.Run("positive control", func(t *testing.T) {
		ws := t.TempDir()
		if res := (run{args: []string{"-p", "hi"}, env: env, dir: ws}.exec(t)); res.code != 0 || res.stdout != "hello\n" {
			t.Fatalf("a plain workspace: %+v", res)
		}
		if _, err := os.Stat(filepath.Join(ws, ".coder", "coder.db")); err != nil {
			t.Fatalf("the store is not in .coder: %v", err)
		}
		writeConfig(t, ws, `{"storage": {"dir": "state"}}`)
		if res := (run{args: []string{"--trust", "-p", "hi"}, env: env, dir: ws}.exec(t)); res.code != 0 {
			t.Fatalf("storage.dir state: %+v", res)
		}
		if _, err := os.Stat(filepath.Join(ws, "state", "coder.db")); err != nil {
			t.Fatalf("the store is not in state/: %v", err)
		}
	})
}
