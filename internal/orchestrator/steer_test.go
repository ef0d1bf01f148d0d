package orchestrator

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/secrets"
)

// testInbox is a person's queue: Take hands everything over once.
type testInbox struct {
	mu    sync.Mutex
	queue []string
	takes int
}

func (b *testInbox) Take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.takes++
	q := b.queue
	b.queue = nil
	return q
}

func (b *testInbox) push(s string) {
	b.mu.Lock()
	b.queue = append(b.queue, s)
	b.mu.Unlock()
}

// A message queued while a tool runs joins the turn before the next model
// call: the same turn's second request carries it after the tool result,
// and it is shown as a user message.
func TestQueuedMessageSteersTheRunningTurn(t *testing.T) {
	inbox := &testInbox{}
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo working"}`)),
		llmtest.Text("ok, also done"),
	}}, nil, func(o *Options) { o.Front.Inbox = inbox })
	h.sink.onEmit = func(e event.Event) {
		if _, ok := e.(event.ToolStarted); ok {
			inbox.push("also update the README")
		}
	}
	out, err := h.run("fix it")
	if err != nil || out.Steps != 2 {
		t.Fatalf("%+v %v", out, err)
	}
	msgs := h.srv.Requests()[1].Messages()
	last := msgs[len(msgs)-1]
	if last.Role != "user" || last.Text != "also update the README" || msgs[len(msgs)-2].Role != "tool" {
		t.Fatalf("second request ends with %+v", msgs[len(msgs)-2:])
	}
	var shown []string
	for _, e := range h.sink.all() {
		if u, ok := e.(event.UserMessage); ok {
			shown = append(shown, u.Text)
		}
	}
	if len(shown) != 1 || shown[0] != "also update the README" {
		t.Fatalf("user messages shown: %q", shown)
	}
}

// Subagents never take a person's messages: they are the main agent's.
func TestSubagentsDoNotTakeTheInbox(t *testing.T) {
	inbox := &testInbox{}
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("task", `{"prompt":"look around","agent":"explore"}`)),
		llmtest.Text("found nothing"), // the subagent
		llmtest.Text("done"),
	}}, nil, func(o *Options) {
		o.Front.Inbox = inbox
		o.Subagents = SubagentOptions{MaxConcurrent: 1, MaxPerTurn: 1, MaxSteps: 3, TokenBudget: 100_000}
	})
	if _, err := h.run("explore"); err != nil {
		t.Fatal(err)
	}
	if inbox.takes != 2 { // before each of the main agent's two model calls
		t.Fatalf("inbox taken %d times", inbox.takes)
	}
}

// A bash call's output is reported live, and auto-verify and compaction
// say they started.
func TestLiveOutputAndProgress(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo out; echo err >&2"}`)),
		llmtest.Calls(llmtest.Call("write", `{"path":"a.go","content":"package a\n"}`)),
		llmtest.Text("done"),
	}}, nil, func(o *Options) {
		o.Workflow.Verify = VerifyOptions{Enabled: true, MaxAttempts: 1, Commands: []string{"go test ./..."}}
	})
	h.write("go.mod", "module a\n")
	if _, err := h.run("go"); err != nil {
		t.Fatal(err)
	}
	streams := map[string]string{}
	var phases []string
	for _, e := range h.sink.all() {
		switch e := e.(type) {
		case event.ToolOutput:
			if e.CallID == "call_0_0" {
				streams[e.Stream] += e.Text
			}
		case event.Progress:
			phases = append(phases, e.Phase+":"+e.Detail)
		}
	}
	if streams["stdout"] != "out\n" || streams["stderr"] != "err\n" {
		t.Fatalf("live output %q", streams)
	}
	if strings.Join(phases, ",") != "verifying:go test ./..." {
		t.Fatalf("progress %q", phases)
	}
}

// /undo's note joins the history: the next request carries it.
func TestNoteUndoReachesTheModel(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("one"), llmtest.Text("two")}}, nil)
	if _, err := h.run("first"); err != nil {
		t.Fatal(err)
	}
	if err := h.orch.NoteUndo(context.Background(), []string{"a.go", "b.go"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.run("second"); err != nil {
		t.Fatal(err)
	}
	msgs := h.srv.Requests()[1].Messages()
	note := msgs[len(msgs)-2].Text
	if !strings.Contains(note, "/undo") || !strings.Contains(note, "a.go, b.go") || msgs[len(msgs)-1].Text != "second" {
		t.Fatalf("messages %+v", msgs)
	}
}

// The replay of a session names inputs, answers and tool calls, without
// attachments, reminders or tool output.
func TestReplay(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"notes.txt"}`), llmtest.Call("read", `{"path":"missing.txt"}`)),
		llmtest.Text("The notes say hello."),
	}}, nil)
	h.write("notes.txt", "hello\n")
	if _, err := h.run("summarise @notes.txt"); err != nil {
		t.Fatal(err)
	}
	r := h.orch.Replay(0)
	var got []string
	for _, e := range r.Entries {
		got = append(got, e.Role+"|"+e.Tool+"|"+e.Text+"|"+map[bool]string{true: "ok", false: "failed"}[e.OK])
	}
	want := "user||summarise @notes.txt|failed;tool|read|notes.txt|ok;tool|read|missing.txt|failed;answer||The notes say hello.|failed"
	if strings.Join(got, ";") != want || r.Messages != 5 {
		t.Fatalf("replay %d messages:\n%s\nwant\n%s", r.Messages, strings.Join(got, ";"), want)
	}
	if r = h.orch.Replay(2); r.Omitted != 2 || len(r.Entries) != 2 {
		t.Fatalf("limited replay %+v", r)
	}
	// The person was told what the @path attached.
	var attached []string
	for _, e := range h.sink.all() {
		if a, ok := e.(event.Attached); ok {
			attached = append(attached, a.Paths...)
		}
	}
	if strings.Join(attached, ",") != "notes.txt" {
		t.Fatalf("attached events %q", attached)
	}
}

// Live output is redacted like the result, even when the command writes a
// secret in pieces.
func TestLiveOutputRedactsSecrets(t *testing.T) {
	const key = "sk-live-abcdefghijklmnop"
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"printf 'key=sk-live-abc'; sleep 0.2; printf 'defghijklmnop done\n'"}`)),
		llmtest.Text("done"),
	}}, nil, func(o *Options) {
		o.Secrets = secrets.NewRedactor(map[string]string{"OPENAI_API_KEY": key})
	})
	if _, err := h.run("go"); err != nil {
		t.Fatal(err)
	}
	var live string
	for _, e := range h.sink.all() {
		if e, ok := e.(event.ToolOutput); ok {
			live += e.Text
		}
	}
	if strings.Contains(live, "abcdefghijklmnop") || live != "key=[redacted OPENAI_API_KEY] done\n" {
		t.Fatalf("live output %q", live)
	}
}
