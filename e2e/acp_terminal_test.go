//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// acpTerminal is one terminal the editor of acp_client.mjs created.
type acpTerminal struct {
	ID      string   `json:"id"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Cwd     string   `json:"cwd"`
	Env     []string `json:"env"`
	Limit   *int     `json:"outputByteLimit"`
	Calls   []string `json:"calls"`
	Exit    *struct {
		ExitCode *int    `json:"exitCode"`
		Signal   *string `json:"signal"`
	} `json:"exit"`
}

func fmtJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// sleeper is the command the editor's cancel must end, with what it
// started: a distinctive argument to look for afterwards.
const sleeper = "sleep 31.5"

// acpTerminalEnv runs the editor-with-terminals process at sandbox level
// landlock where the kernel allows it: the protected paths are then
// guarded by coder around the terminal's command (at level full the mounts
// keep them read-only themselves).
func acpTerminalEnv(t *testing.T) string {
	if sandbox.Probe().Level < sandbox.LevelLandlock {
		return "{}"
	}
	return `{"` + sandbox.ForceLevelEnv + `":"landlock"}`
}

// acpTerminalSteps are the model's side of the third process, whose
// editor offers terminals: a command with output on both streams, a write
// inside the workspace and one to a protected control file; a write
// outside the workspace (the sandbox refuses it); then a long command the
// editor cancels.
func acpTerminalSteps(outside string) []llmtest.Step {
	return []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo out-line; echo err-line >&2; echo inside > term.txt; echo '{}' > .mcp.json; exit 3"}`)),
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo escape > `+outside+`/escape.txt"}`)),
		llmtest.Text("Terminal done."),
		llmtest.Calls(llmtest.Call("bash", `{"command":"`+sleeper+`"}`)),
	}
}

// checkACPTerminal: with an editor that offers terminals, each bash call ran
// in one (streamed there, shown in the tool call), inside coder's sandbox:
// the write outside the workspace was refused and the protected file put
// back, the write inside kept (the positive control); the model got the
// terminal's output and exit code; the cancelled command was killed and
// every terminal released.
func checkACPTerminal(t *testing.T, tr acpTranscript, srv *llmtest.Server, dir, outside string) {
	p := tr.phase(t, "terminal")
	if p.Result.StopReason != "end_turn" || p.Error != "" {
		t.Fatalf("terminal prompt: %q %q", p.Result.StopReason, p.Error)
	}
	if len(tr.Terminals) != 3 {
		t.Fatalf("terminals created: %d, want 3 (one per bash call): %+v", len(tr.Terminals), tr.Terminals)
	}
	for _, term := range tr.Terminals {
		// The terminal runs the command inside coder's sandbox.
		if term.Command != coderBin || len(term.Args) < 5 || term.Args[0] != "__sandbox-terminal" || term.Args[2] != "--" ||
			term.Cwd != dir || term.Limit == nil || *term.Limit <= 0 {
			t.Fatalf("terminal command: %+v", term)
		}
		if got := term.Calls; got[len(got)-1] != "release" {
			t.Fatalf("terminal %s not released: %v", term.ID, got)
		}
		if slices.ContainsFunc(term.Env, func(n string) bool { return strings.HasSuffix(n, "_API_KEY") }) {
			t.Fatalf("the terminal got a key variable: %v", term.Env)
		}
	}
	// The third permission request is the refused write's offer to run
	// outside the sandbox, declined.
	if len(p.Permissions) != 3 || !strings.Contains(fmtJSON(p.Permissions[2].Request), "sandbox") {
		t.Fatalf("permission requests: %d", len(p.Permissions))
	}
	calls, order := p.calls()
	if len(order) < 2 {
		t.Fatalf("tool calls: %v", order)
	}
	for i, id := range order[:2] {
		if terms := contentOf(calls[id], "terminal"); len(terms) != 1 || terms[0]["terminalId"] != tr.Terminals[i].ID {
			t.Fatalf("call %s does not show its terminal: %v", id, calls[id]["content"])
		}
	}
	// The model's results are the terminals' output and exit codes.
	reqs := srv.Requests()
	var first, second string
	for _, r := range reqs {
		for _, m := range lastToolResults(r) {
			switch {
			case strings.Contains(m.Text, "out-line"):
				first = m.Text
			case strings.Contains(m.Text, "escape.txt") || strings.Contains(m.Text, outside):
				second = m.Text
			}
		}
	}
	if !strings.Contains(first, `"exit_code":3`) || !strings.Contains(first, "err-line") {
		t.Fatalf("the first call's result: %s", first)
	}
	if sandbox.Probe().Level >= sandbox.LevelLandlock && !strings.Contains(first, "undid what changed there") {
		t.Fatalf("the model was not told the protected file was put back: %s", first)
	}
	if second == "" || strings.Contains(second, `"exit_code":0`) {
		t.Fatalf("the write outside the workspace was not refused: %s", second)
	}
	if got := readFile(t, dir, "term.txt"); got != "inside\n" {
		t.Fatalf("the write inside the workspace (positive control): %q", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "escape.txt")); err == nil {
		t.Fatal("a command in the editor's terminal wrote outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(dir, ".mcp.json")); err == nil {
		t.Fatal("a command in the editor's terminal planted .mcp.json")
	}

	c := tr.phase(t, "terminal-cancel")
	if c.Result.StopReason != "cancelled" {
		t.Fatalf("cancel during a terminal command: %q %q", c.Result.StopReason, c.Error)
	}
	last := tr.Terminals[2]
	if i := slices.Index(last.Calls, "kill"); i < 0 || i > slices.Index(last.Calls, "release") {
		t.Fatalf("the cancelled command was not killed before release: %v", last.Calls)
	}
	if tr.ThirdExit == nil || *tr.ThirdExit != 0 {
		t.Fatalf("coder acp exit code: %v", tr.ThirdExit)
	}
	// Nothing the cancelled command started outlives it.
	deadline := time.Now().Add(15 * time.Second)
	for exec.Command("pgrep", "-f", sleeper).Run() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled command is still running")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
