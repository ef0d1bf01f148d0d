package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/hooks"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/permission"
)

// withHooks configures one command per event, matching every tool.
func withHooks(t *testing.T, byEvent map[hooks.Event]string) harnessOpt {
	t.Helper()
	var groups []hooks.Group
	for ev, cmd := range byEvent {
		groups = append(groups, hooks.Group{Event: ev, Commands: []hooks.Command{{Command: cmd, Timeout: 20 * time.Second}}})
	}
	r, err := hooks.New(hooks.Options{Groups: groups, Launcher: hooks.Direct{}})
	if err != nil {
		t.Fatal(err)
	}
	return func(o *Options) { o.Hooks = r }
}

func hookRuns(events []event.Event) []event.HookRan {
	var out []event.HookRan
	for _, e := range events {
		if h, ok := e.(event.HookRan); ok {
			out = append(out, h)
		}
	}
	return out
}

// updatedInput is decoded again through the registry: the call that runs
// is the hook's, typed and checked; a change that breaks the schema is
// refused like a malformed call.
func TestHookUpdatedInputIsDecodedAgain(t *testing.T) {
	sc := llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"a.txt"}`)),
		llmtest.Calls(llmtest.Call("read", `{"path":"bad.txt"}`)),
		llmtest.Text("done"),
	}}
	h := newHarness(t, sc, nil, withHooks(t, map[hooks.Event]string{hooks.PreToolUse: `in=$(cat)
case "$in" in
*bad.txt*) echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"path":7}}}' ;;
*) echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"path":"b.txt"}}}' ;;
esac`}))
	h.write("a.txt", "alpha\n")
	h.write("b.txt", "bravo\n")
	if _, err := h.run("read"); err != nil {
		t.Fatal(err)
	}
	last := func(req int) string {
		msgs := h.srv.Requests()[req].Messages()
		return msgs[len(msgs)-1].Text
	}
	first, second := last(1), last(2)
	if !strings.Contains(first, "bravo") || strings.Contains(first, "alpha") {
		t.Errorf("the hook's input was not the one run: %s", first)
	}
	if msg := failure(t, second); !strings.Contains(msg, "path") {
		t.Errorf("a schema-breaking updatedInput: %s", msg)
	}
}

// Read-only calls run at once, and so do their PostToolUse hooks; each
// hook's additional context joins its own call's result.
func TestHookPostToolUseOnConcurrentCalls(t *testing.T) {
	sc := llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"a.txt"}`), llmtest.Call("read", `{"path":"b.txt"}`),
			llmtest.Call("read", `{"path":"c.txt"}`)),
		llmtest.Text("done"),
	}}
	h := newHarness(t, sc, nil, withHooks(t, map[hooks.Event]string{hooks.PostToolUse: `in=$(cat)
f=$(printf '%s' "$in" | sed -n 's/.*"path":"\([a-z]\)\.txt".*/\1/p')
echo "{\"hookSpecificOutput\":{\"additionalContext\":\"checked-$f\"}}"`}))
	for _, f := range []string{"a", "b", "c"} {
		h.write(f+".txt", f+"\n")
	}
	if _, err := h.run("read them"); err != nil {
		t.Fatal(err)
	}
	res := h.toolResults(1)
	if len(res) != 3 {
		t.Fatalf("results: %v", res)
	}
	for _, r := range res {
		var file string
		for _, f := range []string{"a", "b", "c"} {
			if strings.Contains(r, "checked-"+f) {
				file = f
			}
		}
		if file == "" || !strings.Contains(r, file+"\n") && !strings.Contains(r, file+`\n`) {
			t.Errorf("result without its own hook context: %s", r)
		}
	}
	if n := len(hookRuns(h.sink.all())); n != 3 {
		t.Errorf("%d hook runs reported, want 3", n)
	}
}

// A hook's "ask" puts the call to the approver even where the policy
// allows it; nobody can approve here, so it is denied.
func TestHookAskGoesToTheApprover(t *testing.T) {
	sc := llmtest.Scenario{Steps: []llmtest.Step{llmtest.Calls(llmtest.Call("read", `{"path":"a.txt"}`)), llmtest.Text("done")}}
	h := newHarness(t, sc, nil, withHooks(t, map[hooks.Event]string{hooks.PreToolUse: `cat >/dev/null
echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"reads are audited"}}'`}))
	h.write("a.txt", "alpha\n")
	if _, err := h.run("read"); err != nil {
		t.Fatal(err)
	}
	res := h.toolResults(1)
	if len(res) != 1 {
		t.Fatalf("results: %v", res)
	}
	for _, v := range res {
		if msg := failure(t, v); !strings.Contains(msg, "reads are audited") {
			t.Errorf("result: %s", msg)
		}
	}
}

// "continue": false ends the turn after the step, as a success, with the
// reason shown to the person and not sent to the model.
func TestHookContinueFalseEndsTheTurn(t *testing.T) {
	sc := llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"a.txt"}`)), llmtest.Text("never asked"),
	}}
	h := newHarness(t, sc, nil, withHooks(t, map[hooks.Event]string{hooks.PostToolUse: `cat >/dev/null
echo '{"continue":false,"stopReason":"budget for today spent"}'`}))
	h.write("a.txt", "alpha\n")
	out, err := h.run("read")
	if err != nil || out.State != event.StateCompleted {
		t.Fatalf("state %s, err %v", out.State, err)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
	var said bool
	for _, e := range h.sink.all() {
		if n, ok := e.(event.Notice); ok && strings.Contains(n.Text, "budget for today spent") {
			said = true
		}
	}
	if !said {
		t.Error("no notice with the stop reason")
	}
}

// A PreToolUse stop in a batch of read-only calls (admitted one by one,
// then run at once) refuses the calls after it, as the serial loop does:
// their hooks do not run, and neither do they.
func TestHookStopInAConcurrentBatch(t *testing.T) {
	sc := llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"a.txt"}`), llmtest.Call("read", `{"path":"b.txt"}`),
			llmtest.Call("read", `{"path":"c.txt"}`)),
		llmtest.Text("never asked"),
	}}
	h := newHarness(t, sc, nil, withHooks(t, map[hooks.Event]string{hooks.PreToolUse: `in=$(cat)
case "$in" in
*b.txt*) echo '{"continue":false,"stopReason":"enough reading"}' ;;
*) echo '{}' ;;
esac`}))
	for _, f := range []string{"a", "b", "c"} {
		h.write(f+".txt", f+"-content\n")
	}
	out, err := h.run("read them")
	if err != nil || out.State != event.StateCompleted {
		t.Fatalf("state %s, err %v", out.State, err)
	}
	if n := len(hookRuns(h.sink.all())); n != 2 {
		t.Errorf("%d PreToolUse runs, want 2 (a and b; c is never admitted)", n)
	}
	var results []string
	for _, m := range h.orch.Session().Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 3 || !strings.Contains(results[0], "a-content") ||
		!strings.Contains(results[1], "not run") || !strings.Contains(results[2], "not run") {
		t.Fatalf("results: %q", results)
	}
}

// A subagent's end runs SubagentStop, told the parent's session.
func TestHookSubagentStop(t *testing.T) {
	sc := llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("task", `{"description":"look","prompt":"look around","subagent_type":"explore"}`)),
		llmtest.Text("sub done"),
		llmtest.Text("done"),
	}}
	h := newHarness(t, sc, nil, withHooks(t, map[hooks.Event]string{
		hooks.SubagentStop: `cat >/dev/null`,
		hooks.Stop:         `cat >/dev/null`,
	}), func(o *Options) { o.Subagents = SubagentOptions{MaxConcurrent: 1, MaxPerTurn: 2, MaxSteps: 5} })
	if _, err := h.run("delegate"); err != nil {
		t.Fatal(err)
	}
	var sub, stop bool
	for _, e := range h.sink.all() {
		switch e := e.(type) {
		case event.Subagent:
			if hr, ok := e.Event.(event.HookRan); ok && hr.Event == "SubagentStop" {
				sub = true
			}
		case event.HookRan:
			stop = stop || e.Event == "Stop"
		}
	}
	if !sub || !stop {
		t.Errorf("SubagentStop ran %v, Stop ran %v", sub, stop)
	}
}

// yes approves every request, as a person would.
type yes struct{}

func (yes) Approve(context.Context, permission.Request) (permission.Reply, error) {
	return permission.Reply{Approved: true}, nil
}

// A person asked to approve is a Notification; without one (headless)
// there is nobody to notify.
func TestHookNotificationWhenAPersonIsAsked(t *testing.T) {
	for _, attended := range []bool{true, false} {
		sc := llmtest.Scenario{Steps: []llmtest.Step{llmtest.Calls(llmtest.Call("read", `{"path":"a.txt"}`)), llmtest.Text("done")}}
		h := newHarness(t, sc, nil, withHooks(t, map[hooks.Event]string{
			hooks.PreToolUse:   `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`,
			hooks.Notification: `grep -q '"message":"coder needs your permission to use read"'`,
		}), func(o *Options) {
			o.Front.Approver = yes{}
			if attended {
				o.Front.Questioner = &person{}
			}
		})
		h.write("a.txt", "alpha\n")
		if _, err := h.run("read"); err != nil {
			t.Fatal(err)
		}
		var notified []string
		for _, r := range hookRuns(h.sink.all()) {
			if r.Event == "Notification" {
				notified = append(notified, r.Outcome)
			}
		}
		if want := map[bool]int{true: 1, false: 0}[attended]; len(notified) != want || (want == 1 && notified[0] != "ok") {
			t.Errorf("attended %v: notifications %v", attended, notified)
		}
	}
}

// A session nobody announced (an editor's new session) runs its
// SessionStart hooks before its first turn, once; their output and the
// prompt hook's both join the input.
func TestHookSessionStartBeforeTheFirstTurn(t *testing.T) {
	sc := llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("one"), llmtest.Text("two")}}
	h := newHarness(t, sc, nil, withHooks(t, map[hooks.Event]string{
		hooks.SessionStart:     `grep -q '"source":"startup"' && echo start-notes`,
		hooks.UserPromptSubmit: `cat >/dev/null; echo prompt-notes`,
	}))
	for _, in := range []string{"first", "second"} {
		if _, err := h.run(in); err != nil {
			t.Fatal(err)
		}
	}
	reqs := h.srv.Requests()
	first, second := reqs[0].Messages(), reqs[1].Messages()
	if u := first[len(first)-1].Text; !strings.Contains(u, "first") || !strings.Contains(u, "start-notes") || !strings.Contains(u, "prompt-notes") {
		t.Errorf("first input: %q", u)
	}
	if u := second[len(second)-1].Text; strings.Contains(u, "start-notes") || !strings.Contains(u, "prompt-notes") {
		t.Errorf("second input: %q", u)
	}
	var starts int
	for _, r := range hookRuns(h.sink.all()) {
		if r.Event == "SessionStart" {
			starts++
		}
	}
	if starts != 1 {
		t.Errorf("SessionStart ran %d times", starts)
	}
}

// A call that failed runs PostToolUseFailure (Claude Code's error and
// is_interrupt), not PostToolUse; what the hook says on exit 2 joins the
// failed result the model gets.
func TestHookPostToolUseFailure(t *testing.T) {
	logs := t.TempDir()
	sc := llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo fine"}`)),
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo broke-it >&2; exit 3"}`)),
		llmtest.Text("done"),
	}}
	h := newHarness(t, sc, nil, withHooks(t, map[hooks.Event]string{
		hooks.PostToolUse:        `cat >> ` + logs + `/post.log; echo >> ` + logs + `/post.log`,
		hooks.PostToolUseFailure: `cat > ` + logs + `/failure.json; echo "the build dir is read-only, use ./tmp" >&2; exit 2`,
	}))
	if _, err := h.run("go"); err != nil {
		t.Fatal(err)
	}
	if post := strings.TrimSpace(readTestFile(t, logs, "post.log")); strings.Count(post, "\n") != 0 || !strings.Contains(post, "echo fine") {
		t.Errorf("PostToolUse ran for: %s", post)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(readTestFile(t, logs, "failure.json")), &in); err != nil {
		t.Fatal(err)
	}
	if in["hook_event_name"] != "PostToolUseFailure" || in["tool_name"] != "bash" || in["is_interrupt"] != false ||
		in["error"] != "exit code 3\nbroke-it" || in["tool_use_id"] == "" {
		t.Errorf("input: %v", in)
	}
	for _, r := range h.toolResults(2) {
		noted := strings.Contains(r, "PostToolUseFailure hook: the build dir is read-only, use ./tmp")
		if failed := strings.Contains(r, "broke-it"); noted != failed {
			t.Errorf("result (failed %v, noted %v): %s", failed, noted, r)
		}
	}
}

// A compaction runs PreCompact (trigger, custom_instructions) before it
// and SessionStart with source "compact" after it. In a turn (auto) their
// context reaches the very next model call; after /compact (manual), with
// the person's instructions, it joins the next input.
func TestHookCompactionEvents(t *testing.T) {
	logs := t.TempDir()
	summaries := llmtest.NewServer(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{llmtest.Text("Goal: read files.")}})
	var sc llmtest.Scenario
	for i := range 8 {
		sc.Steps = append(sc.Steps, llmtest.Calls(llmtest.Call("read", fmt.Sprintf(`{"path":"f%d.txt"}`, i))))
	}
	sc.Steps = append(sc.Steps, llmtest.Text("read them all"), llmtest.Text("next answer"))
	h := newHarness(t, sc, nil, withHooks(t, map[hooks.Event]string{
		hooks.PreCompact:   `cat >> ` + logs + `/pre.log; echo >> ` + logs + `/pre.log`,
		hooks.SessionStart: `grep -q '"source":"compact"' && echo compact-notes-7`,
	}), func(o *Options) {
		o.Limits.ContextLimit = 6000
		o.Compaction = CompactionOptions{Auto: true, Threshold: 0.6, RecentMessages: 2,
			Provider: llm.WithRetry(openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: summaries.OpenAIBaseURL()}, Model: "fake"}), llm.RetryPolicy{})}
	})
	filler := strings.Repeat("filler words fill the context window; ", 60)
	for i := range 8 {
		h.write(fmt.Sprintf("f%d.txt", i), filler)
	}
	if _, err := h.run("read the files"); err != nil {
		t.Fatal(err)
	}
	auto := -1
	for i, r := range h.srv.Requests() {
		if msgs := r.Messages(); strings.HasPrefix(msgs[0].Text, contextmgr.SummaryTag) {
			auto = i
			if !slices.ContainsFunc(msgs, func(m llmtest.Msg) bool { return strings.Contains(m.Text, "compact-notes-7") }) {
				t.Errorf("request %d, the first after compacting, lacks the SessionStart context", i)
			}
			break
		}
	}
	if auto < 0 {
		t.Fatal("nothing was compacted")
	}
	if _, err := h.orch.Compact(context.Background(), "keep the file names"); err != nil {
		t.Fatal(err)
	}
	sreqs := summaries.Requests()
	if last := sreqs[len(sreqs)-1].Messages(); !strings.Contains(last[0].Text, "keep the file names") {
		t.Errorf("the summary request lacks the instructions: %s", last[0].Text)
	}
	if _, err := h.run("and now?"); err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages()
	if u := msgs[len(msgs)-1]; !strings.Contains(u.Text, "and now?") || !strings.Contains(u.Text, "compact-notes-7") {
		t.Errorf("the input after /compact: %q", u.Text)
	}
	lines := strings.Split(strings.TrimSpace(readTestFile(t, logs, "pre.log")), "\n")
	first, last := lines[0], lines[len(lines)-1]
	if !strings.Contains(first, `"trigger":"auto"`) || !strings.Contains(first, `"custom_instructions":""`) ||
		!strings.Contains(last, `"trigger":"manual"`) || !strings.Contains(last, `"custom_instructions":"keep the file names"`) {
		t.Errorf("PreCompact inputs: %q", lines)
	}
}

// An editor's thread starts its session before any prompt: StartSession
// runs SessionStart once, and the first turn carries its context.
func TestHookStartSession(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("one")}}, nil, withHooks(t, map[hooks.Event]string{
		hooks.SessionStart: `grep -q '"source":"startup"' && echo start-notes`,
	}))
	h.orch.StartSession(context.Background())
	h.orch.StartSession(context.Background())
	if n := len(hookRuns(h.sink.all())); n != 1 {
		t.Fatalf("%d SessionStart runs before the first prompt, want 1", n)
	}
	if _, err := h.run("first"); err != nil {
		t.Fatal(err)
	}
	msgs := h.srv.Requests()[0].Messages()
	if u := msgs[len(msgs)-1].Text; !strings.Contains(u, "start-notes") {
		t.Errorf("first input: %q", u)
	}
	if n := len(hookRuns(h.sink.all())); n != 1 {
		t.Errorf("SessionStart ran again at the first turn: %d runs", n)
	}
}

func readTestFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A hook matcher written for Claude Code ("Edit", "MultiEdit") selects
// the calls of the tools whose facts give that name (edit and patch), and
// no other: the names reach the hooks from the tools.
func TestHookMatchersUseTheToolsClaudeNames(t *testing.T) {
	sc := llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("patch", `{"patch":"*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch"}`)),
		llmtest.Calls(llmtest.Call("read", `{"path":"a.txt"}`)),
		llmtest.Text("done"),
	}}
	r, err := hooks.New(hooks.Options{Launcher: hooks.Direct{}, Groups: []hooks.Group{{Event: hooks.PreToolUse,
		Matcher: "MultiEdit", Commands: []hooks.Command{{Command: "echo 'no edits' >&2; exit 2", Timeout: 20 * time.Second}}}}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, sc, nil, func(o *Options) { o.Hooks = r })
	h.write("a.txt", "alpha\n")
	if _, err := h.run("go"); err != nil {
		t.Fatal(err)
	}
	if msg := failure(t, lastText(h, 1)); !strings.Contains(msg, "no edits") {
		t.Errorf("the patch call was not blocked by the MultiEdit hook: %s", msg)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "new.txt")); err == nil {
		t.Error("the blocked patch ran")
	}
	if got := lastText(h, 2); !strings.Contains(got, "alpha") { // positive control: read is no MultiEdit
		t.Errorf("the read call was blocked too: %s", got)
	}
}

// lastText is the last message of the recorded request req.
func lastText(h *harness, req int) string {
	msgs := h.srv.Requests()[req].Messages()
	return msgs[len(msgs)-1].Text
}
