//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

func TestUndoAfterRestartIsByteIdentical(t *testing.T) {
	dir := t.TempDir()
	original := map[string]string{
		"edit.go":    "package p\r\n\r\nfunc F() int { return 1 }", // CRLF, no final newline
		"sedme.txt":  "alpha beta\n",
		"gone.txt":   "bye\n",
		"binary.bin": "\x00\x01\x02\xff",
	}
	for name, content := range original {
		writeFile(t, dir, name, content)
	}
	if err := os.Chmod(filepath.Join(dir, "gone.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"edit.go"}`)),
		llmtest.Calls(llmtest.Call("edit", `{"path":"edit.go","old_string":"return 1","new_string":"return 2"}`)),
		llmtest.Calls(llmtest.Call("write", `{"path":"new/dir/created.txt","content":"fresh\n"}`)),
		llmtest.Calls(llmtest.Call("bash", `{"command":"sed -i 's/alpha/omega/' sedme.txt && rm gone.txt && printf 'x' >> binary.bin"}`)),
		llmtest.Text("Changed four things."),
	}})
	env := providerEnv(t, srv, "openai")
	first := run{args: []string{"-p", "change things"}, env: env, dir: dir}.exec(t)
	if first.code != 0 {
		t.Fatalf("first run: %d %s", first.code, first.stderr)
	}
	if got := readFile(t, dir, "sedme.txt"); got != "omega beta\n" {
		t.Fatalf("bash did not run: %q", got)
	}

	// A new process undoes the turn.
	undo := run{args: []string{"--continue", "-p", "/undo"}, env: env, dir: dir}.exec(t)
	if undo.code != 0 {
		t.Fatalf("/undo: %d %s %s", undo.code, undo.stdout, undo.stderr)
	}
	for _, name := range []string{"edit.go", "sedme.txt", "gone.txt", "new/dir/created.txt"} {
		if !strings.Contains(undo.stdout, name) {
			t.Errorf("/undo output does not list %s:\n%s", name, undo.stdout)
		}
	}
	for name, content := range original {
		if got := readFile(t, dir, name); got != content {
			t.Errorf("%s after /undo = %q, want %q", name, got, content)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "gone.txt")); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("gone.txt mode not restored: %v %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("created directory survived /undo: %v", err)
	}

	again := run{args: []string{"--continue", "-p", "/undo"}, env: env, dir: dir}.exec(t)
	if again.code != 0 || strings.TrimSpace(again.stdout) != "nothing to undo" {
		t.Fatalf("second /undo: %d %q %q", again.code, again.stdout, again.stderr)
	}
}
