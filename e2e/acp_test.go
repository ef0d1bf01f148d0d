//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// acpTranscript is what e2e/testdata/acp_client.mjs saw.
type acpTranscript struct {
	SDKVersion string         `json:"sdkVersion"`
	Failure    string         `json:"failure"`
	Initialize map[string]any `json:"initialize"`
	NewSession struct {
		SessionID string `json:"sessionId"`
		Modes     struct {
			CurrentModeID  string           `json:"currentModeId"`
			AvailableModes []map[string]any `json:"availableModes"`
		} `json:"modes"`
	} `json:"newSession"`
	SessionID string `json:"sessionId"`
	List      struct {
		Sessions []map[string]any `json:"sessions"`
	} `json:"list"`
	FirstExit  *int          `json:"firstExit"`
	SecondExit *int          `json:"secondExit"`
	ThirdExit  *int          `json:"thirdExit"`
	Phases     []acpPhase    `json:"phases"`
	Terminals  []acpTerminal `json:"terminals"`
}

type acpPhase struct {
	Name    string `json:"name"`
	Updates []struct {
		SessionID string         `json:"sessionId"`
		Update    map[string]any `json:"update"`
	} `json:"updates"`
	Permissions []struct {
		Request map[string]any `json:"request"`
		Answer  string         `json:"answer"`
	} `json:"permissions"`
	Reads  []string `json:"reads"`
	Writes []struct {
		Path, Content string
	} `json:"writes"`
	Result struct {
		StopReason string         `json:"stopReason"`
		Usage      map[string]any `json:"usage"`
	} `json:"result"`
	Error string `json:"error"`
}

// of lists the updates of one kind (their sessionUpdate).
func (p acpPhase) of(kind string) []map[string]any {
	var out []map[string]any
	for _, u := range p.Updates {
		if u.Update["sessionUpdate"] == kind {
			out = append(out, u.Update)
		}
	}
	return out
}

// text joins the phase's chunks of one kind.
func (p acpPhase) text(kind string) string {
	var b strings.Builder
	for _, u := range p.of(kind) {
		if c, ok := u["content"].(map[string]any); ok {
			s, _ := c["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// calls are the phase's tool calls by id, with their updates applied in
// order (what an editor would show).
func (p acpPhase) calls() (map[string]map[string]any, []string) {
	byID := map[string]map[string]any{}
	var order []string
	for _, u := range p.Updates {
		up := u.Update
		id, _ := up["toolCallId"].(string)
		switch up["sessionUpdate"] {
		case "tool_call":
			byID[id] = map[string]any{}
			order = append(order, id)
		case "tool_call_update":
		default:
			continue
		}
		if byID[id] == nil {
			byID[id] = map[string]any{}
			order = append(order, id)
		}
		for k, v := range up {
			byID[id][k] = v
		}
	}
	return byID, order
}

func (tr acpTranscript) phase(t *testing.T, name string) acpPhase {
	t.Helper()
	for _, p := range tr.Phases {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no phase %q in the transcript", name)
	return acpPhase{}
}

// acpScenario is the model's side of the editor session driven by
// acp_client.mjs, one step per model call.
func acpScenario(outside string) llmtest.Scenario {
	counter := `{"command":"echo ran >> count.txt"}`
	return llmtest.Scenario{Steps: append([]llmtest.Step{
		// edit: read (the editor's unsaved buffer), then edit it.
		llmtest.Calls(llmtest.Call("read", `{"path":"hello.py"}`)),
		llmtest.Calls(llmtest.Call("edit", `{"path":"hello.py","old_string":"hello buffer","new_string":"hello editor"}`)),
		llmtest.Text("Edited hello.py."),
		// bash: rejected, allowed once, allowed always, then allowed without
		// asking; a dangerous command offers no "always" and is rejected.
		llmtest.Calls(llmtest.Call("bash", counter)),
		llmtest.Calls(llmtest.Call("bash", counter)),
		llmtest.Calls(llmtest.Call("bash", counter)),
		llmtest.Calls(llmtest.Call("bash", counter)),
		llmtest.Calls(llmtest.Call("bash", `{"command":"git reset --hard"}`)),
		llmtest.Text("Bash done."),
		// cancel-permission: the editor cancels while asked.
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo never >> never.txt"}`)),
		// cancel-stream: the first attempt stalls after a few chunks and is
		// cancelled; the next prompt gets the whole answer.
		{Text: "Once upon a time there was a very long answer that streamed slowly.",
			Faults: []llmtest.Fault{{Kind: llmtest.FaultStall, AfterChunks: 4}}},
		// plan: a refused write and a todo list, then the plan approved.
		llmtest.Calls(
			llmtest.Call("write", `{"path":"plan.txt","content":"no"}`),
			llmtest.Call("todowrite", `{"todos":[{"content":"Add a greeting","status":"in_progress"},{"content":"Test it","status":"pending"}]}`),
		),
		llmtest.Calls(llmtest.Call("exit_plan_mode", `{"plan":"1. Add a greeting.\n2. Test it."}`)),
		llmtest.Text("Planned."),
		// after-load, in a new process: the history is back.
		{Text: "I edited hello.py.", Check: func(r llmtest.Request) error {
			for _, m := range r.Messages() {
				if m.Role == "assistant" && strings.Contains(m.Text, "Edited hello.py.") {
					return nil
				}
			}
			return errorf("the loaded session's history was not sent")
		}},
	}, acpTerminalSteps(outside)...)}
}

type errorf string

func (e errorf) Error() string { return string(e) }

// TestACPWithTheOfficialTypeScriptClient drives `coder acp` with the ACP
// TypeScript SDK's ClientSideConnection (acp_client.mjs) against the fake
// model server. CI installs the SDK (see .ci/run) and sets
// CODER_TEST_NPM_DIR.
func TestACPWithTheOfficialTypeScriptClient(t *testing.T) {
	npmDir := os.Getenv("CODER_TEST_NPM_DIR")
	if npmDir == "" {
		t.Skip("CODER_TEST_NPM_DIR is not set (CI installs @agentclientprotocol/sdk there; see .ci/run)")
	}
	if _, err := os.Stat(filepath.Join(npmDir, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		t.Skipf("@agentclientprotocol/sdk is not installed in %s (see .ci/run)", npmDir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	outside := t.TempDir()
	srv := llmtest.NewServer(t, acpScenario(outside))
	dir := t.TempDir()
	writeFile(t, dir, "hello.py", "hello world\n")
	writeFile(t, dir, ".coder/commands/greet.md", "---\ndescription: greet someone\n---\nSay hello to $ARGUMENTS.\n")
	tmp := t.TempDir()
	transcriptPath, stderrPath := filepath.Join(tmp, "transcript.json"), filepath.Join(tmp, "coder-stderr.log")

	env := providerEnv(t, srv, "openai")
	env["CODER_TEST_NPM_DIR"], env["CODER_BIN"], env["ACP_WORKSPACE"] = npmDir, coderBin, dir
	env["ACP_TRANSCRIPT"], env["ACP_STDERR"] = transcriptPath, stderrPath
	env["ACP_TERMINAL_ENV"] = acpTerminalEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "testdata/acp_client.mjs")
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, runErr := cmd.CombinedOutput()
	raw, _ := os.ReadFile(transcriptPath)
	coderErr, _ := os.ReadFile(stderrPath)
	t.Logf("coder acp stderr:\n%s", coderErr)
	if runErr != nil {
		t.Fatalf("the client failed: %v\n%s\ntranscript: %s", runErr, out, raw)
	}
	for _, s := range [][]byte{raw, coderErr, out} {
		if strings.Contains(string(s), testKey) {
			t.Fatal("the API key appeared in the protocol stream or a log")
		}
	}
	var tr acpTranscript
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatalf("transcript: %v\n%s", err, raw)
	}
	t.Logf("@agentclientprotocol/sdk %s", tr.SDKVersion)
	checkACPSetup(t, tr)
	checkACPEdit(t, tr, srv, dir)
	checkACPBash(t, tr, dir)
	checkACPCancel(t, tr, dir)
	checkACPPlan(t, tr, dir)
	checkACPLoad(t, tr)
	checkACPTerminal(t, tr, srv, dir, outside)
}

func checkACPSetup(t *testing.T, tr acpTranscript) {
	caps, _ := tr.Initialize["agentCapabilities"].(map[string]any)
	if tr.Initialize["protocolVersion"] != 1.0 || caps["loadSession"] != true {
		t.Fatalf("initialize: %v", tr.Initialize)
	}
	if pc, _ := caps["promptCapabilities"].(map[string]any); pc["embeddedContext"] != true {
		t.Fatalf("prompt capabilities: %v", caps)
	}
	if mc, _ := caps["mcpCapabilities"].(map[string]any); mc["http"] != true {
		t.Fatalf("MCP capabilities: %v", caps)
	}
	ns := tr.NewSession
	if ns.SessionID == "" || ns.Modes.CurrentModeID != "build" || len(ns.Modes.AvailableModes) < 2 {
		t.Fatalf("session/new: %+v", ns)
	}
	cmds := tr.phase(t, "connect").of("available_commands_update")
	if len(cmds) != 1 {
		t.Fatalf("available_commands_update after session/new: %d", len(cmds))
	}
	var names []string
	for _, c := range cmds[0]["availableCommands"].([]any) {
		names = append(names, c.(map[string]any)["name"].(string))
	}
	for _, want := range []string{"undo", "compact", "plan", "greet"} {
		if !slices.Contains(names, want) {
			t.Fatalf("command %q not offered: %v", want, names)
		}
	}
	if slices.Contains(names, "new") || slices.Contains(names, "resume") {
		t.Fatalf("/new and /resume are the editor's, not offered: %v", names)
	}
}

func checkACPEdit(t *testing.T, tr acpTranscript, srv *llmtest.Server, dir string) {
	p := tr.phase(t, "edit")
	if p.Error != "" || p.Result.StopReason != "end_turn" {
		t.Fatalf("edit prompt: stop %q error %q", p.Result.StopReason, p.Error)
	}
	hello := filepath.Join(dir, "hello.py")
	// The model read the editor's unsaved buffer, not the disk.
	if !slices.Contains(p.Reads, hello) {
		t.Fatalf("no fs/read_text_file of %s: %v", hello, p.Reads)
	}
	if r := lastToolResults(srv.Requests()[1]); len(r) != 1 || !strings.Contains(r[0].Text, "hello buffer") {
		t.Fatalf("the read result is not the buffer: %+v", r)
	}
	calls, order := p.calls()
	if len(order) != 2 {
		t.Fatalf("tool calls %v", order)
	}
	read, edit := calls[order[0]], calls[order[1]]
	if read["kind"] != "read" || read["status"] != "completed" || !hasLocation(read, hello) {
		t.Fatalf("read call: %v", read)
	}
	if edit["kind"] != "edit" || edit["status"] != "completed" || !hasLocation(edit, hello) {
		t.Fatalf("edit call: %v", edit)
	}
	diffs := contentOf(edit, "diff")
	if len(diffs) != 1 || diffs[0]["path"] != hello || !strings.Contains(diffs[0]["oldText"].(string), "hello buffer") ||
		!strings.Contains(diffs[0]["newText"].(string), "hello editor") {
		t.Fatalf("edit diff content: %v", edit["content"])
	}
	if len(p.Writes) != 1 || p.Writes[0].Path != hello || readFile(t, dir, "hello.py") != "hello editor\n" {
		t.Fatalf("the edit was not written through the editor: %+v, file %q", p.Writes, readFile(t, dir, "hello.py"))
	}
	msg := p.text("agent_message_chunk")
	if !strings.Contains(msg, "Edited hello.py.") || !strings.Contains(msg, "not verified:") {
		t.Fatalf("answer and verification line: %q", msg)
	}
	// The context's fill after each model call, and the turn's tokens.
	usage := p.of("usage_update")
	if len(usage) == 0 || usage[len(usage)-1]["used"].(float64) <= 0 || usage[len(usage)-1]["size"].(float64) <= 0 {
		t.Fatalf("usage_update: %v", usage)
	}
	if total, _ := p.Result.Usage["totalTokens"].(float64); total <= 0 {
		t.Fatalf("the prompt response's usage: %v", p.Result.Usage)
	}
}

func checkACPBash(t *testing.T, tr acpTranscript, dir string) {
	p := tr.phase(t, "bash")
	if p.Result.StopReason != "end_turn" {
		t.Fatalf("bash prompt: %q %q", p.Result.StopReason, p.Error)
	}
	if len(p.Permissions) != 4 {
		t.Fatalf("permission requests: %d, want 4 (reject, once, always, then the dangerous one)", len(p.Permissions))
	}
	kinds := func(i int) []string {
		var out []string
		for _, o := range p.Permissions[i].Request["options"].([]any) {
			out = append(out, o.(map[string]any)["kind"].(string))
		}
		return out
	}
	if got := strings.Join(kinds(0), ","); got != "allow_once,allow_always,reject_once" {
		t.Fatalf("options of a policy ask: %s", got)
	}
	if got := strings.Join(kinds(3), ","); got != "allow_once,reject_once" {
		t.Fatalf("options of a danger request: %s", got)
	}
	calls, order := p.calls()
	var statuses []string
	for _, id := range order {
		statuses = append(statuses, calls[id]["status"].(string))
	}
	if strings.Join(statuses, ",") != "failed,completed,completed,completed,failed" {
		t.Fatalf("bash call statuses: %v", statuses)
	}
	if c := calls[order[1]]; c["kind"] != "execute" || !strings.Contains(textOf(c), "exit 0") {
		t.Fatalf("bash call output: %v", c)
	}
	if got := readFile(t, dir, "count.txt"); got != "ran\nran\nran\n" {
		t.Fatalf("count.txt %q: once, always, then remembered", got)
	}
	if cfg := readFile(t, dir, ".coder/config.json"); !strings.Contains(cfg, "echo ran >> count.txt") {
		t.Fatalf("always was not remembered in the project: %s", cfg)
	}
}

func checkACPCancel(t *testing.T, tr acpTranscript, dir string) {
	p := tr.phase(t, "cancel-permission")
	if p.Result.StopReason != "cancelled" || len(p.Permissions) != 1 {
		t.Fatalf("cancel during a permission request: %q, %d requests", p.Result.StopReason, len(p.Permissions))
	}
	if _, err := os.Stat(filepath.Join(dir, "never.txt")); err == nil {
		t.Fatal("the cancelled command ran")
	}
	p = tr.phase(t, "cancel-stream")
	if p.Result.StopReason != "cancelled" || p.Error != "" {
		t.Fatalf("cancel during a slow stream: %q %q", p.Result.StopReason, p.Error)
	}
	if got := p.text("agent_message_chunk"); got == "" || strings.Contains(got, "streamed slowly") {
		t.Fatalf("the cancelled stream showed %q", got)
	}
	p = tr.phase(t, "after-cancel")
	if p.Result.StopReason != "end_turn" || !strings.Contains(p.text("agent_message_chunk"), "streamed slowly") {
		t.Fatalf("the session did not go on after the cancel: %q %q", p.Result.StopReason, p.text("agent_message_chunk"))
	}
}

func checkACPPlan(t *testing.T, tr acpTranscript, dir string) {
	modes := tr.phase(t, "set-mode").of("current_mode_update")
	if len(modes) != 1 || modes[0]["currentModeId"] != "plan" {
		t.Fatalf("set_mode plan: %v", modes)
	}
	p := tr.phase(t, "plan")
	if p.Result.StopReason != "end_turn" {
		t.Fatalf("plan prompt: %q %q", p.Result.StopReason, p.Error)
	}
	calls, order := p.calls()
	write := calls[order[0]]
	if write["kind"] != "edit" || write["status"] != "failed" || !strings.Contains(textOf(write), "disabled in plan mode") {
		t.Fatalf("the write in plan mode: %v", write)
	}
	if _, err := os.Stat(filepath.Join(dir, "plan.txt")); err == nil {
		t.Fatal("plan mode wrote a file")
	}
	plans := p.of("plan")
	if len(plans) != 1 {
		t.Fatalf("plan updates: %v", plans)
	}
	entries := plans[0]["entries"].([]any)
	if len(entries) != 2 || entries[0].(map[string]any)["status"] != "in_progress" || entries[1].(map[string]any)["content"] != "Test it" {
		t.Fatalf("plan entries: %v", entries)
	}
	if len(p.Permissions) != 1 {
		t.Fatalf("exit_plan_mode questions: %d", len(p.Permissions))
	}
	var names []string
	for _, o := range p.Permissions[0].Request["options"].([]any) {
		names = append(names, o.(map[string]any)["name"].(string)+":"+o.(map[string]any)["kind"].(string))
	}
	if len(names) != 3 || !strings.HasSuffix(names[2], ":reject_once") {
		t.Fatalf("exit_plan_mode options: %v", names)
	}
	if m := p.of("current_mode_update"); len(m) != 1 || m[0]["currentModeId"] != "build" {
		t.Fatalf("approving the plan switched to %v", m)
	}
}

func checkACPLoad(t *testing.T, tr acpTranscript) {
	if tr.FirstExit == nil || *tr.FirstExit != 0 || tr.SecondExit == nil || *tr.SecondExit != 0 {
		t.Fatalf("coder acp exit codes: %v %v", tr.FirstExit, tr.SecondExit)
	}
	listed := false
	for _, s := range tr.List.Sessions {
		listed = listed || s["sessionId"] == tr.SessionID
	}
	if !listed {
		t.Fatalf("session/list: %v", tr.List.Sessions)
	}
	p := tr.phase(t, "load")
	if got := p.text("user_message_chunk"); !strings.Contains(got, "read and edit hello.py") {
		t.Fatalf("replayed user messages: %q", got)
	}
	if got := p.text("agent_message_chunk"); !strings.Contains(got, "Edited hello.py.") {
		t.Fatalf("replayed agent messages: %q", got)
	}
	calls, order := p.calls()
	kinds := map[string]int{}
	for _, id := range order {
		kinds[calls[id]["kind"].(string)]++
	}
	if kinds["read"] != 1 || kinds["edit"] < 2 || kinds["execute"] != 6 {
		t.Fatalf("replayed tool calls by kind: %v", kinds)
	}
	if len(p.of("plan")) != 1 || len(p.of("available_commands_update")) != 1 {
		t.Fatalf("plan and commands after load: %d %d", len(p.of("plan")), len(p.of("available_commands_update")))
	}
	after := tr.phase(t, "after-load")
	if after.Result.StopReason != "end_turn" || !strings.Contains(after.text("agent_message_chunk"), "I edited hello.py.") {
		t.Fatalf("prompt after load: %q %q", after.Result.StopReason, after.Error)
	}
}

func hasLocation(call map[string]any, path string) bool {
	locs, _ := call["locations"].([]any)
	for _, l := range locs {
		if l.(map[string]any)["path"] == path {
			return true
		}
	}
	return false
}

// contentOf lists a call's content items of one type.
func contentOf(call map[string]any, typ string) []map[string]any {
	var out []map[string]any
	items, _ := call["content"].([]any)
	for _, it := range items {
		if m := it.(map[string]any); m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}

// textOf joins a call's text content.
func textOf(call map[string]any) string {
	var b strings.Builder
	for _, c := range contentOf(call, "content") {
		if inner, ok := c["content"].(map[string]any); ok {
			s, _ := inner["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}
