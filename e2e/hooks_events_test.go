//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// The hook events of Claude Code that coder runs beyond the tool and
// prompt events, each with Claude Code's field names, through the binary.

// logHook is a hook script appending each input it gets as one line of
// HOME/<name>.log, then running more (the hook's answer).
func (w *hookWorld) logHook(t *testing.T, name, more string) string {
	t.Helper()
	// One write per line: hooks of one event run at once.
	return w.script(t, name+".sh", `in=$(cat); printf '%s\n' "$in" >> "$HOME/`+name+`.log"`+"\n"+more)
}

// logged are the inputs a logHook received, decoded.
func (w *hookWorld) logged(t *testing.T, name string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.env["HOME"], name+".log"))
	if err != nil {
		return nil
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s.log: %q: %v", name, line, err)
		}
		out = append(out, m)
	}
	return out
}

// field lists one field of each input.
func field(ins []map[string]any, key string) []any {
	var out []any
	for _, in := range ins {
		out = append(out, in[key])
	}
	return out
}

// lineREPL runs coder's line mode (the REPL without a terminal) with the
// lines typed in.
func (w *hookWorld) lineREPL(t *testing.T, sc llmtest.Scenario, lines ...string) (result, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, sc)
	res := run{stdin: strings.Join(lines, "\n") + "\n", env: withProvider(t, w.env, srv), dir: w.ws}.exec(t)
	mustExit0(t, res)
	return res, srv
}

// TestHookPostToolUseFailureEvent: a failed bash call runs
// PostToolUseFailure (tool_name, tool_input, tool_use_id, error,
// is_interrupt) and not PostToolUse; the hook's exit-2 message reaches the
// model with the failed result. A call that worked runs PostToolUse only.
func TestHookPostToolUseFailureEvent(t *testing.T) {
	w := newHookWorld(t)
	fail := w.logHook(t, "failure", `echo "hint: run make deps first" >&2; exit 2`)
	post := w.logHook(t, "post", "")
	w.userHooks(t, `{"PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": `+strconv.Quote(fail)+`}]}],
		"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": `+strconv.Quote(post)+`}]}]}`)
	res, srv := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(bashCall("echo fine")),
		llmtest.Calls(bashCall("echo missing-dep >&2; exit 4")),
		llmtest.Text("ok")}})
	mustExit0(t, res)
	if ins := w.logged(t, "post"); len(ins) != 1 || ins[0]["tool_input"].(map[string]any)["command"] != "echo fine" {
		t.Errorf("PostToolUse inputs: %v", ins)
	}
	ins := w.logged(t, "failure")
	if len(ins) != 1 {
		t.Fatalf("PostToolUseFailure inputs: %v", ins)
	}
	in := ins[0]
	if in["hook_event_name"] != "PostToolUseFailure" || in["tool_name"] != "bash" || in["tool_use_id"] == "" ||
		in["error"] != "exit code 4\nmissing-dep" || in["is_interrupt"] != false || in["cwd"] != w.ws || in["session_id"] == "" {
		t.Errorf("input: %v", in)
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "echo missing-dep >&2; exit 4" {
		t.Errorf("tool_input: %v", in["tool_input"])
	}
	if got := results(t, srv, 1); len(got) != 1 || !strings.Contains(got[0], "hint: run make deps first") {
		t.Errorf("the failed call's result: %q", got)
	}
}

// TestHookSessionStartSourcesAndSessionEndReasons: SessionStart's source
// and SessionEnd's reason as Claude Code names them: a REPL session starts
// (startup), /new ends it (clear) and starts another (clear), leaving ends
// that one (prompt_input_exit); --continue starts with resume and a -p run
// ends with other. A matcher selects by source.
func TestHookSessionStartSourcesAndSessionEndReasons(t *testing.T) {
	w := newHookWorld(t)
	start, end := w.logHook(t, "start", ""), w.logHook(t, "end", "")
	resumeOnly := w.logHook(t, "resumed", "")
	w.userHooks(t, `{"SessionStart": [{"hooks": [{"type": "command", "command": `+strconv.Quote(start)+`}]},
			{"matcher": "resume", "hooks": [{"type": "command", "command": `+strconv.Quote(resumeOnly)+`}]}],
		"SessionEnd": [{"hooks": [{"type": "command", "command": `+strconv.Quote(end)+`}]}]}`)
	w.lineREPL(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("one"), llmtest.Text("two")}}, "go", "/new", "go")
	res, _ := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("three")}}, "--continue")
	mustExit0(t, res)
	starts, ends := w.logged(t, "start"), w.logged(t, "end")
	if got := field(starts, "source"); !slices.Equal(got, []any{"startup", "clear", "resume"}) {
		t.Errorf("SessionStart sources: %v", got)
	}
	if got := field(ends, "reason"); !slices.Equal(got, []any{"clear", "prompt_input_exit", "other"}) {
		t.Errorf("SessionEnd reasons: %v", got)
	}
	if got := field(append(starts, ends...), "hook_event_name"); !slices.Equal(got, []any{"SessionStart", "SessionStart", "SessionStart",
		"SessionEnd", "SessionEnd", "SessionEnd"}) {
		t.Errorf("hook_event_name: %v", got)
	}
	// The /new session is a new one; --continue resumes it.
	if ids := field(starts, "session_id"); ids[0] == ids[1] || ids[1] != ids[2] {
		t.Errorf("session ids: %v", ids)
	}
	if got := field(w.logged(t, "resumed"), "source"); !slices.Equal(got, []any{"resume"}) {
		t.Errorf("the resume matcher ran for: %v", got)
	}
}

// TestHookCompactionEvents: /compact with instructions runs PreCompact
// (trigger manual, custom_instructions), the summary follows the
// instructions, and SessionStart with source compact adds its context to
// the next input. A compaction coder makes itself (the provider said the
// context overflowed) is trigger auto, and the context of its SessionStart
// reaches the retried call.
func TestHookCompactionEvents(t *testing.T) {
	w := newHookWorld(t)
	writeFile(t, w.ws, ".coder/config.json", `{"compaction": {"recent_messages": 1}}`)
	pre := w.logHook(t, "precompact", "")
	mark := marker()
	start := w.logHook(t, "start", `echo "after-compact-`+mark+`"`)
	w.userHooks(t, `{"PreCompact": [{"hooks": [{"type": "command", "command": `+strconv.Quote(pre)+`}]}],
		"SessionStart": [{"matcher": "compact", "hooks": [{"type": "command", "command": `+strconv.Quote(start)+`}]}]}`)
	_, srv := w.lineREPL(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Text("first answer"), llmtest.Text("Goal: the API notes."), llmtest.Text("second answer")}},
		"go", "/compact keep the API notes", "next")
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3 (answer, summary, answer)", len(reqs))
	}
	if s := reqs[1].Messages(); !strings.Contains(s[len(s)-1].Text, "keep the API notes") {
		t.Errorf("the summary request lacks the instructions: %v", s)
	}
	if m := reqs[2].Messages(); !strings.Contains(m[len(m)-1].Text, "next") || !strings.Contains(m[len(m)-1].Text, "after-compact-"+mark) {
		t.Errorf("the input after /compact: %+v", m[len(m)-1])
	}
	pres := w.logged(t, "precompact")
	if len(pres) != 1 || pres[0]["hook_event_name"] != "PreCompact" || pres[0]["trigger"] != "manual" ||
		pres[0]["custom_instructions"] != "keep the API notes" {
		t.Errorf("PreCompact input: %v", pres)
	}
	if got := field(w.logged(t, "start"), "source"); !slices.Equal(got, []any{"compact"}) {
		t.Errorf("SessionStart (matcher compact) ran for: %v", got)
	}

	// Auto: the second call overflows; coder compacts and retries it.
	res, srv := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(readCall()),
		{Text: "Goal: read a.txt.", Faults: []llmtest.Fault{{Kind: llmtest.FaultContextOverflow}}},
		llmtest.Text("done")}})
	mustExit0(t, res)
	pres = w.logged(t, "precompact")
	if last := pres[len(pres)-1]; len(pres) != 2 || last["trigger"] != "auto" || last["custom_instructions"] != "" {
		t.Errorf("PreCompact inputs: %v", pres)
	}
	reqs = srv.Requests()
	retried := reqs[len(reqs)-1].Messages()
	if !slices.ContainsFunc(retried, func(m llmtest.Msg) bool { return strings.Contains(m.Text, "after-compact-"+mark) }) {
		t.Errorf("the retried call lacks the SessionStart context: %+v", retried)
	}
}

// TestHookImportClaudeUserSettings: the person's ~/.claude/settings.json
// hooks run only when hooks.import_claude_user asks for them.
func TestHookImportClaudeUserSettings(t *testing.T) {
	w := newHookWorld(t)
	mark := marker()
	writeFile(t, filepath.Join(w.env["HOME"], ".claude"), "settings.json",
		`{"model": "opus", "hooks": `+group("UserPromptSubmit", "", `cat >/dev/null; echo "claude-user-`+mark+`"`, 0)+`}`)
	lastInput := func(srv *llmtest.Server) string {
		m := srv.Requests()[0].Messages()
		return m[len(m)-1].Text
	}
	res, srv := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("ok")}})
	mustExit0(t, res)
	if strings.Contains(lastInput(srv), mark) {
		t.Fatal("Claude Code's user hooks ran without hooks.import_claude_user")
	}
	w.userHooks(t, `{"import_claude_user": true}`)
	res, srv = w.run(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("ok")}})
	mustExit0(t, res)
	if !strings.Contains(lastInput(srv), "claude-user-"+mark) {
		t.Errorf("with import_claude_user the hook did not run: %q", lastInput(srv))
	}
}

// TestHookSessionStartInACPThreads: an editor's new thread runs its
// SessionStart hooks (source startup) once session/new has answered, with
// no prompt needed; a prompt sent at once waits for a slow hook and
// carries its context; session/load starts with source resume; closing
// the editor ends each thread (SessionEnd).
func TestHookSessionStartInACPThreads(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("hello")}})
	dir := t.TempDir()
	env := providerEnv(t, srv, "openai")
	w := &hookWorld{ws: dir, scripts: t.TempDir(), env: env}
	mark := marker()
	const hookSleep = 3 * time.Second
	start := w.logHook(t, "start", `sleep 3; echo "editor-start-`+mark+`"`)
	end := w.logHook(t, "end", "")
	w.userHooks(t, `{"SessionStart": [{"hooks": [{"type": "command", "command": `+strconv.Quote(start)+`}]}],
		"SessionEnd": [{"hooks": [{"type": "command", "command": `+strconv.Quote(end)+`}]}]}`)
	r := startRawACP(t, env, dir)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	r.until(1)
	began := time.Now()
	r.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + quoteJSON(dir) + `,"mcpServers":[]}}`)
	resp, _ := r.until(2)
	if took := time.Since(began); took >= hookSleep {
		t.Errorf("session/new answered after %s: it waited for the SessionStart hook", took)
	}
	sid, _ := resp["result"].(map[string]any)["sessionId"].(string)
	r.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hi"}]}}`)
	if resp, _ := r.until(3); resp["result"] == nil {
		t.Fatalf("session/prompt: %v", resp)
	}
	if m := srv.Requests()[0].Messages(); !strings.Contains(m[len(m)-1].Text, "editor-start-"+mark) {
		t.Errorf("the first prompt raced the SessionStart hook: %q", m[len(m)-1].Text)
	}

	// A second thread that never prompts still starts; loading the first
	// starts it again as resume.
	r.send(`{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":` + quoteJSON(dir) + `,"mcpServers":[]}}`)
	r.until(4)
	r.send(`{"jsonrpc":"2.0","id":5,"method":"session/load","params":{"sessionId":"` + sid + `","cwd":` + quoteJSON(dir) + `,"mcpServers":[]}}`)
	r.until(5)
	deadline := time.Now().Add(30 * time.Second)
	for len(w.logged(t, "start")) < 3 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	r.in.Close()
	for range r.lines {
	}
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("coder acp: %v\n%s", err, r.stderr.String())
	}
	starts := w.logged(t, "start")
	sources := field(starts, "source")
	slices.SortFunc(sources, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
	if !slices.Equal(sources, []any{"resume", "startup", "startup"}) || starts[0]["hook_event_name"] != "SessionStart" {
		t.Errorf("SessionStart inputs: %v", starts)
	}
	// Three threads (loading the first replaced its own), each ended.
	if got := field(w.logged(t, "end"), "hook_event_name"); len(got) != 3 {
		t.Errorf("SessionEnd ran %d times, want 3", len(got))
	}
}
