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

// TestUndoNeverRestoresThroughAPlantedSymlink: the model writes files in a
// git-ignored directory, then swaps that directory for a symlink to a
// directory outside; /undo puts the normal file back and writes nothing
// outside through the link.
func TestUndoNeverRestoresThroughAPlantedSymlink(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	writeFile(t, dir, ".gitignore", "build/\n")
	writeFile(t, dir, "main.txt", "original\n")
	writeFile(t, dir, "build/out.txt", "old build\n")
	writeFile(t, outside, "out.txt", "precious\n")
	writeFile(t, outside, "new.txt", "also precious\n")
	writeFile(t, dir, ".coder/config.json", `{"approval": {"allow_danger": true}}`)
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"main.txt"}`), llmtest.Call("read", `{"path":"build/out.txt"}`)),
		llmtest.Calls(
			llmtest.Call("write", `{"path":"main.txt","content":"changed\n"}`),
			llmtest.Call("write", `{"path":"build/out.txt","content":"new build\n"}`),
			llmtest.Call("write", `{"path":"build/new.txt","content":"created\n"}`),
		),
		llmtest.Calls(llmtest.Call("bash", `{"command":"rm -rf build && ln -s `+outside+` build"}`)),
		llmtest.Text("done"),
	}})
	env := providerEnv(t, srv, "openai")
	if res := (run{args: []string{"--trust", "-p", "build"}, env: env, dir: dir}.exec(t)); res.code != 0 {
		t.Fatalf("run: %+v", res)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "build")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was not planted: %v %v", fi, err)
	}
	res := run{args: []string{"--trust", "--continue", "-p", "/undo"}, env: env, dir: dir}.exec(t)
	if got := readFile(t, outside, "out.txt"); got != "precious\n" {
		t.Fatalf("/undo wrote outside through the symlink: out.txt = %q (%s)", got, res.stdout)
	}
	if got := readFile(t, outside, "new.txt"); got != "also precious\n" {
		t.Fatalf("/undo removed or changed a file outside: new.txt = %q", got)
	}
	if got := readFile(t, dir, "main.txt"); got != "original\n" {
		t.Fatalf("positive control: main.txt after /undo = %q (%s %s)", got, res.stdout, res.stderr)
	}
}
