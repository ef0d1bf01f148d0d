package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// needCommand skips a test whose language server is not installed; CI
// installs them (.ci/run), so there they run.
func needCommand(t *testing.T, cmd string) {
	t.Helper()
	if _, err := exec.LookPath(cmd); err != nil {
		t.Skipf("%s is not installed (CI installs it: see .ci/run); skipping", cmd)
	}
}

// slowMachine is the bound the tests give servers: generous, because a
// loaded test machine is far slower than a person's; the bound itself is
// tested with servers that never answer.
const slowMachine = 90 * time.Second

func goplsManager(t *testing.T, dir string, initOptions map[string]any) *Manager {
	t.Helper()
	m := New(Options{Root: dir, Wait: slowMachine, StartWait: slowMachine,
		Servers: []Spec{{Name: "gopls", Command: "gopls", Patterns: []string{"*.go"}, InitOptions: initOptions}}})
	t.Cleanup(m.Close)
	return m
}

// edit changes a file the way a file tool does, between the manager's
// hooks, and returns what the tool result would carry.
func edit(t *testing.T, m *Manager, path, content string) string {
	t.Helper()
	text, _ := editTimed(t, m, path, content)
	return text
}

// editTimed is edit that also says how long the write alone took.
func editTimed(tb testing.TB, m *Manager, path, content string) (text string, write time.Duration) {
	tb.Helper()
	m.BeforeEdit([]string{path})
	t0 := time.Now()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
	write = time.Since(t0)
	text, _ = m.AfterEdit(context.Background(), []string{path})
	return text, write
}

func writeTree(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

const goMod = "module example.com/m\n\ngo 1.22\n"

// An error the file had before the session touched it is not new, also
// when an edit above it moves it down; an error the edit makes is
// reported with its line and a code frame; fixing it clears it; a clean
// edit adds nothing; a new file's errors are all new; the end-of-turn
// check counts only errors that were not there before.
//
// gopls publishes its diagnostics by default; asked to (pullDiagnostics),
// it answers textDocument/diagnostic instead, and coder asks.
func TestGoplsReportsWhatTheEditBroke(t *testing.T) {
	needCommand(t, "gopls")
	for _, pull := range []bool{false, true} {
		t.Run(map[bool]string{false: "published", true: "pulled"}[pull], func(t *testing.T) {
			t.Parallel()
			testGoplsEdits(t, map[string]any{"pullDiagnostics": pull}, pull)
		})
	}
}

func testGoplsEdits(t *testing.T, initOptions map[string]any, pull bool) {
	dir := writeTree(t, map[string]string{
		"go.mod": goMod,
		"a.go":   "package m\n\nvar old int = \"was already broken\"\n",
	})
	m := goplsManager(t, dir, initOptions)
	a := filepath.Join(dir, "a.go")

	if got := edit(t, m, a, "package m\n\n// Moved down.\n\nvar old int = \"was already broken\"\n"); got != "" {
		t.Fatalf("an edit above an old error reported: %q", got)
	}
	m.mu.Lock()
	asked := m.servers["gopls"].cl.pull
	m.mu.Unlock()
	if asked != pull {
		t.Fatalf("the client pulls: %v, want %v", asked, pull)
	}
	broken := "package m\n\n// Moved down.\n\nvar old int = \"was already broken\"\n\nfunc F() string {\n\treturn 42\n}\n"
	got := edit(t, m, a, broken)
	for _, want := range []string{"gopls", "1 new error in a.go", "a.go:8:9: error:", "42", "  8 | \treturn 42", "^^"} {
		if !strings.Contains(got, want) {
			t.Errorf("the result lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "was already broken") {
		t.Errorf("the old error was reported as new:\n%s", got)
	}
	if c := m.Check(context.Background(), []string{a}); !strings.HasPrefix(c, "LSP: 1 error") || !strings.Contains(c, "a.go:8:9") {
		t.Errorf("end-of-turn check with the new error left: %q", c)
	}
	if got := edit(t, m, a, strings.Replace(broken, "return 42", `return "42"`, 1)); got != "" {
		t.Errorf("fixing the error reported: %q", got)
	}
	if got := edit(t, m, a, strings.Replace(broken, "return 42", `return "forty-two"`, 1)); got != "" {
		t.Errorf("a clean edit reported: %q", got)
	}
	if c := m.Check(context.Background(), []string{a}); c != "LSP clean" {
		t.Errorf("end-of-turn check with only the old error: %q", c)
	}
	b := filepath.Join(dir, "b.go")
	got = edit(t, m, b, "package m\n\nvar fresh bool = 0\n")
	if !strings.Contains(got, "1 new error in b.go") || !strings.Contains(got, "b.go:3:") {
		t.Errorf("a new file's error: %q", got)
	}
	st := m.Describe()
	for _, want := range []string{"gopls", "running, 2 open files", "a.go: 1 error", "b.go: 1 error"} {
		if !strings.Contains(st, want) {
			t.Errorf("/lsp lacks %q:\n%s", want, st)
		}
	}
}
