//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// presetAgents: a custom agent that asks before every change, and one that
// asks for nothing.
const presetAgents = `{"agents": {"definitions": [
	{"name": "careful", "mode": "build", "permission_preset": "strict"},
	{"name": "free", "mode": "build", "permission_preset": "yolo"}]}}`

// A custom agent's permission_preset is in force when coder runs as that
// agent: under careful (strict) a write asks, where build (the session's
// balanced preset) or an explicit --permissions balanced writes unasked; under free (yolo) an rm runs unasked,
// where build asks. An untrusted project cannot hand itself yolo through an
// agent: the preset is dropped and rm still asks. (A headless run answers a
// policy ask itself, yes, so what shows is the ask in stream-json.)
func TestCustomAgentPermissionPreset(t *testing.T) {
	t.Parallel()
	write := llmtest.Call("write", `{"path":"new.txt","content":"x\n"}`)
	rm := llmtest.Call("bash", `{"command":"rm old.txt"}`)
	tests := []struct {
		name  string
		args  []string
		call  llmtest.ToolCall
		asked bool
	}{
		{"build writes unasked", []string{"--trust", "--mode", "build"}, write, false},
		{"careful asks to write", []string{"--trust", "--mode", "careful"}, write, true},
		{"--permissions wins over careful", []string{"--trust", "--mode", "careful", "--permissions", "balanced"}, write, false},
		{"build asks to rm", []string{"--trust", "--mode", "build"}, rm, true},
		{"free runs rm unasked", []string{"--trust", "--mode", "free"}, rm, false},
		{"free untrusted asks to rm", []string{"--mode", "free"}, rm, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFile(t, dir, ".coder/config.json", presetAgents)
			writeFile(t, dir, "old.txt", "old\n")
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Calls(tt.call), llmtest.Text("done")}})
			args := append(append([]string{}, tt.args...), "-p", "go", "--output-format", "stream-json")
			res := run{args: args, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			if got := approvals(t, res.stdout); (len(got) == 1) != tt.asked || len(got) > 1 {
				t.Fatalf("approvals %v, want one: %v", got, tt.asked)
			}
			if !ranCall(t, dir, tt.call) {
				t.Fatal("the call did not run")
			}
		})
	}
}

// ranCall tells whether the write or the rm of the preset tests ran.
func ranCall(t *testing.T, dir string, c llmtest.ToolCall) bool {
	t.Helper()
	if c.Name == "bash" {
		_, err := os.Stat(filepath.Join(dir, "old.txt"))
		return os.IsNotExist(err)
	}
	_, err := os.Stat(filepath.Join(dir, "new.txt"))
	return err == nil
}

// Switching in the REPL applies the agent's preset at once: under careful
// (strict) a write asks and a person's "n" keeps the file from being
// written; back in build (balanced) the same kind of write runs unasked.
func TestCustomAgentPermissionPresetREPL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, ".coder/config.json", presetAgents)
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("write", `{"path":"careful.txt","content":"x\n"}`)),
		llmtest.Text("first answer"),
		llmtest.Calls(llmtest.Call("write", `{"path":"build.txt","content":"x\n"}`)),
		llmtest.Text("second answer"),
	}})
	s := startTmux(t, srv, dir, nil, "--trust")
	s.typeText("/mode careful")
	s.keys("Enter")
	s.waitFor("mode: careful")
	s.typeText("write one")
	s.keys("Enter")
	s.waitFor("Approve? (y/n/always)")
	s.typeText("n")
	s.keys("Enter")
	s.waitFor("first answer")
	if _, err := os.Stat(filepath.Join(dir, "careful.txt")); err == nil {
		t.Fatal("careful.txt was written though the person said no")
	}
	s.typeText("/mode build")
	s.keys("Enter")
	s.waitFor("mode: build")
	s.typeText("write two")
	s.keys("Enter")
	scr := s.waitFor("second answer")
	if n := strings.Count(scr, "Approve?"); n != 1 {
		t.Fatalf("%d approval prompts, want only careful's:\n%s", n, scr)
	}
	waitFor(t, "build.txt to be written", func() bool {
		_, err := os.Stat(filepath.Join(dir, "build.txt"))
		return err == nil
	})
}
