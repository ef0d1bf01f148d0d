//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// garbageCalls are calls no tool can run: the model sent them broken. Each
// is answered with {"ok":false} naming the problem, and nobody is asked.
var garbageCalls = []struct {
	call llmtest.ToolCall
	want string // in the error the model gets back
}{
	{llmtest.ToolCall{ID: "trunc", Name: "bash", Args: `{"command": "ls"`}, "invalid JSON arguments for bash"},
	{llmtest.ToolCall{ID: "noname", Name: "", Args: `{"command":"touch made-by-noname"}`}, "no tool name"},
	{llmtest.ToolCall{ID: "unknown", Name: "rm_everything", Args: `{}`}, `unknown tool "rm_everything"`},
	{llmtest.ToolCall{ID: "schema", Name: "bash", Args: `{"command": 5}`}, `field "command" must be a string`},
	{llmtest.ToolCall{ID: "missing", Name: "write", Args: `{"path":"made-by-write.txt"}`}, `missing required field "content"`},
	{llmtest.ToolCall{ID: "badpatch", Name: "patch", Args: `{"patch":"not a patch"}`}, "invalid arguments for patch"},
}

func garbageScenario() llmtest.Scenario {
	var calls []llmtest.ToolCall
	for _, g := range garbageCalls {
		calls = append(calls, g.call)
	}
	return llmtest.Scenario{Steps: []llmtest.Step{llmtest.Calls(calls...), llmtest.Text("sorry about that")}}
}

// assertGarbageAnswered checks the model's second request: every broken
// call has an ok:false result naming its problem, and nothing ran.
func assertGarbageAnswered(t *testing.T, srv *llmtest.Server, dir string) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests: the turn did not go on after the broken calls", len(reqs))
	}
	results := map[string]string{}
	for _, m := range lastToolResults(reqs[1]) {
		results[m.ToolCallID] = m.Text
	}
	for _, g := range garbageCalls {
		var f struct {
			OK    *bool  `json:"ok"`
			Error string `json:"error"`
		}
		got := results[g.call.ID]
		if json.Unmarshal([]byte(got), &f) != nil || f.OK == nil || *f.OK || !strings.Contains(f.Error, g.want) {
			t.Errorf("call %s: result %q, want ok:false mentioning %q", g.call.ID, got, g.want)
		}
	}
	for _, f := range []string{"made-by-noname", "made-by-write.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s exists: a broken call ran", f)
		}
	}
}

func TestGarbageCallsAnsweredWithoutAskingHeadless(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, garbageScenario())
	dir := t.TempDir()
	res := run{args: []string{"--permissions", "strict", "-p", "do it", "--output-format", "stream-json"},
		env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	assertGarbageAnswered(t, srv, dir)
	if a := approvals(t, res.stdout); len(a) != 0 {
		t.Errorf("approvals were asked for broken calls: %v", a)
	}
	// The JSON output keeps the arguments the model sent, broken or not.
	last := streamEvents(t, res.stdout)
	calls, _ := last[len(last)-1]["tool_calls"].([]any)
	if len(calls) != len(garbageCalls) {
		t.Fatalf("tool_calls %v", calls)
	}
	if args := calls[0].(map[string]any)["args"]; args != `{"command": "ls"` {
		t.Errorf("the truncated call's arguments in the output: %v", args)
	}
}

func TestGarbageCallsAnsweredWithoutAskingREPL(t *testing.T) {
	srv := llmtest.NewServer(t, garbageScenario())
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil, "--permissions", "strict")
	s.typeText("do it")
	s.keys("Enter")
	scr := s.waitFor("sorry about that")
	s.waitFor(dir + ">")
	if strings.Contains(scr, "[approval]") || strings.Contains(scr, "Approve?") {
		t.Fatalf("a person was asked about a broken call:\n%s", scr)
	}
	assertGarbageAnswered(t, srv, dir)
}

// agentsConfig defines a custom plan-mode agent and a custom build agent.
const agentsConfig = `{"approval": {"allow_danger": true}, "agents": {"definitions": [
	{"name": "reviewer", "mode": "plan", "prompt": "You review code and change nothing."},
	{"name": "fixer", "mode": "build", "prompt": "You fix bugs."}]}}`

// A custom agent with mode plan is plan mode everywhere: the plan section
// of the system prompt, the policy, and the read-only sandbox under an
// approved command.
func TestCustomPlanAgentIsPlanMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, dir, ".coder/config.json", agentsConfig)
	writeFile(t, dir, "a.txt", "original\n")
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("write", `{"path":"a.txt","content":"changed\n"}`),
			llmtest.Call("bash", `{"command":"echo x > a.txt; touch created.txt"}`)),
		llmtest.Text("done"),
	}})
	res := run{args: []string{"--trust", "--mode", "reviewer", "-p", "change it"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	sys := srv.Requests()[0].System()
	if !strings.Contains(sys, "# Plan mode") || !strings.Contains(sys, "You review code") {
		t.Fatalf("the custom plan agent's prompt lacks the plan section:\n%s", sys)
	}
	results := lastToolResults(srv.Requests()[1])
	if len(results) != 2 || !strings.Contains(results[0].Text, "disabled in reviewer mode") {
		t.Fatalf("write in plan mode: %+v", results)
	}
	if r := sandbox.Probe(); r.LandlockABI > 0 {
		if !strings.Contains(results[1].Text, "Permission denied") && !strings.Contains(results[1].Text, "Read-only file system") {
			t.Errorf("the approved command was not run read-only: %s", results[1].Text)
		}
	} else {
		t.Logf("no Landlock here (%s): only the policy is checked", r.Warning())
	}
	if got := readFile(t, dir, "a.txt"); got != "original\n" {
		t.Errorf("a.txt changed in plan mode: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "created.txt")); err == nil {
		t.Error("created.txt exists: plan mode changed the workspace")
	}
}

// A custom agent with mode build verifies its edits like build does.
func TestCustomBuildAgentAutoVerifies(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: auto-verify runs go test")
	}
	dir := calcWorkspace(t)
	writeFile(t, dir, ".coder/config.json", agentsConfig)
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"calc.go"}`)),
		llmtest.Calls(llmtest.Call("edit", `{"path":"calc.go","old_string":"return a - b","new_string":"return a + b"}`)),
		llmtest.Text("fixed"),
	}})
	env := providerEnv(t, srv, "openai")
	env["HOME"] = t.TempDir()
	res := run{args: []string{"--trust", "--mode", "fixer", "-p", "fix Add"}, env: env, dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if !strings.Contains(res.stdout, "verified: go test ./... (exit 0)") {
		t.Fatalf("the custom build agent did not verify:\n%s", res.stdout)
	}
}
