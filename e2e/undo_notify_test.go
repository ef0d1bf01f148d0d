//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// TestUndoRestoresDeepChangesOfALaterCall: in a session whose first bash
// calls left a deep tree of long-unchanged files alone (so the scan keeps
// it by inotify's word), a later call changes two files deep in it, one
// by a plain write and one through a shared mapping (no write event: its
// close at exit is what tells); /undo in a new process restores both.
// The positive control: both changes are on disk before /undo.
func TestUndoRestoresDeepChangesOfALaterCall(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the write through a mapping")
	}
	dir := t.TempDir()
	original := map[string]string{
		"deep/a/b/c/d/e/plain.txt": "plain before\n",
		"deep/x/y/z/mapped.bin":    "0123456789abcdef",
	}
	for name, content := range original {
		writeFile(t, dir, name, content)
	}
	for i := range 40 { // enough directories that a walk would be the cost
		writeFile(t, dir, filepath.Join("deep/wide", "d"+string(rune('a'+i%26))+string(rune('a'+i/26)), "keep.txt"), "keep\n")
	}
	old := time.Now().Add(-time.Hour)
	if err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	}); err != nil {
		t.Fatal(err)
	}
	// In place (r+), so the same inode: one write, one modify event.
	change, _ := json.Marshal(map[string]string{"command": `python3 -c "open('deep/a/b/c/d/e/plain.txt','r+').write('plain after!\n')" && ` +
		`python3 -c "import mmap,os; f=open('deep/x/y/z/mapped.bin','r+b'); m=mmap.mmap(f.fileno(),0); m[0:6]=b'MAPPED'; os._exit(0)"`})
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"true"}`)),
		llmtest.Calls(llmtest.Call("bash", `{"command":"true"}`)),
		llmtest.Calls(llmtest.Call("bash", string(change))),
		llmtest.Text("Changed two files."),
	}})
	env := providerEnv(t, srv, "openai")
	first := run{args: []string{"--output-format", "stream-json", "-p", "change deep files"}, env: env, dir: dir}.exec(t)
	if first.code != 0 {
		t.Fatalf("first run: %d %s", first.code, first.stderr)
	}
	if got := readFile(t, dir, "deep/a/b/c/d/e/plain.txt"); got != "plain after!\n" {
		t.Fatalf("the plain write did not happen: %q\n%s\n%s", got, first.stdout, first.stderr)
	}
	if got := readFile(t, dir, "deep/x/y/z/mapped.bin"); got != "MAPPED6789abcdef" {
		t.Fatalf("the write through a mapping did not happen: %q\n%s", got, first.stdout)
	}

	undo := run{args: []string{"--continue", "-p", "/undo"}, env: env, dir: dir}.exec(t)
	if undo.code != 0 {
		t.Fatalf("/undo: %d %s %s", undo.code, undo.stdout, undo.stderr)
	}
	for name, content := range original {
		if !strings.Contains(undo.stdout, name) {
			t.Errorf("/undo output does not list %s:\n%s", name, undo.stdout)
		}
		if got := readFile(t, dir, name); got != content {
			t.Errorf("%s after /undo = %q, want %q", name, got, content)
		}
	}
}
