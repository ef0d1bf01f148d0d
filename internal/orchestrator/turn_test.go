package orchestrator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/tools"
)

func TestEmptyInputDoesNothing(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{}, nil)
	out, err := h.run("   \n ")
	if err != nil || out.State != event.StateIdle {
		t.Fatalf("empty input: %v %v", out, err)
	}
	if n := len(h.srv.Requests()); n != 0 || len(h.orch.Session().Messages) != 0 {
		t.Fatalf("empty input made %d requests and %d messages", n, len(h.orch.Session().Messages))
	}
}

func TestTextTurn(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{{Reasoning: "think", Text: "Hello there, friend."}}}, nil)
	out, err := h.run("hi")
	if err != nil {
		t.Fatal(err)
	}
	if out.State != event.StateCompleted || out.Result != "Hello there, friend." || out.Steps != 1 {
		t.Fatalf("outcome %+v", out)
	}
	var text, reasoning strings.Builder
	for _, e := range h.sink.all() {
		switch e := e.(type) {
		case event.TextDelta:
			text.WriteString(e.Text)
		case event.ReasoningDelta:
			reasoning.WriteString(e.Text)
		}
	}
	if text.String() != "Hello there, friend." || reasoning.String() != "think" {
		t.Fatalf("streamed text %q reasoning %q", text.String(), reasoning.String())
	}
	msgs := h.orch.Session().Messages
	if len(msgs) != 2 || msgs[0].Role != chat.RoleUser || msgs[1].Content != "Hello there, friend." {
		t.Fatalf("session messages %+v", msgs)
	}
	if h.orch.Session().Title != "hi" {
		t.Fatalf("title %q", h.orch.Session().Title)
	}
	// The state machine as seen through events.
	var states []event.RunState
	for _, e := range h.sink.all() {
		if s, ok := e.(event.StateChanged); ok {
			states = append(states, s.To)
		}
	}
	want := []event.RunState{event.StatePreparing, event.StateModelRunning, event.StateCompleted}
	if !slices.Equal(states, want) {
		t.Fatalf("states %v, want %v", states, want)
	}
}

func TestToolFailuresGoBackToTheModel(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(
			llmtest.ToolCall{ID: "c1", Name: "nosuchtool", Args: `{}`},
			llmtest.ToolCall{ID: "c2", Name: "read", Args: `{"path": "a.txt"`},
			llmtest.ToolCall{ID: "c3", Name: "read", Args: `{"path": 42}`},
			llmtest.ToolCall{ID: "c4", Name: "read", Args: `{}`},
		),
		llmtest.Text("ok, giving up"),
	}}, nil)
	out, err := h.run("read a.txt")
	if err != nil || out.Result != "ok, giving up" {
		t.Fatalf("turn: %+v %v", out, err)
	}
	res := h.toolResults(1)
	checks := map[string]string{
		"c1": `unknown tool "nosuchtool"`,
		"c2": "invalid JSON arguments",
		"c3": "path",
		"c4": "path",
	}
	for id, want := range checks {
		if msg := failure(t, res[id]); !strings.Contains(msg, want) {
			t.Errorf("%s: error %q does not mention %q", id, msg, want)
		}
	}
}

func TestStepLimit(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("glob", `{"pattern":"*"}`)),
	}}, nil, func(o *Options) { o.Limits.MaxSteps = 3 })
	out, err := h.run("loop forever")
	if !errors.Is(err, ErrStepLimit) || out.State != event.StateFailed || out.Reason != "step limit reached" {
		t.Fatalf("want step limit, got %+v %v", out, err)
	}
	if n := len(h.srv.Requests()); n != 3 {
		t.Fatalf("%d model calls, want 3", n)
	}
	// The history stays valid: the last call's result was appended.
	msgs := h.orch.Session().Messages
	if last := msgs[len(msgs)-1]; last.Role != chat.RoleTool {
		t.Fatalf("last message %+v", last)
	}
}

func TestDisabledToolIsRefusedAndHidden(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.ToolCall{ID: "w", Name: "write", Args: `{"path":"x.txt","content":"x"}`}),
		llmtest.Text("done"),
	}}, nil, func(o *Options) { o.Agent = agent.PlanAgent() })
	if _, err := h.run("write x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "x.txt")); !os.IsNotExist(err) {
		t.Fatalf("plan mode wrote a file: %v", err)
	}
	if msg := failure(t, h.toolResults(1)["w"]); !strings.Contains(msg, "disabled in plan mode") {
		t.Fatalf("refusal %q", msg)
	}
	if slices.Contains(h.srv.Requests()[0].ToolNames(), "write") {
		t.Fatal("plan mode offered the write tool to the model")
	}
}

// countingApprover records requests and answers with a fixed reply.
type countingApprover struct {
	reply permission.Reply
	reqs  []permission.Request
}

func (a *countingApprover) Approve(ctx context.Context, r permission.Request) (permission.Reply, error) {
	a.reqs = append(a.reqs, r)
	return a.reply, ctx.Err()
}

type askPolicy struct{}

func (askPolicy) Decide(c *tools.Call, _ agent.Mode) permission.Decision {
	return permission.Decision{Action: permission.Ask, Reason: c.Name + " policy requires approval"}
}

func TestOneApprovalForPolicyAndToolReasons(t *testing.T) {
	appr := &countingApprover{reply: permission.Reply{Approved: false, Feedback: "not that file"}}
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.ToolCall{ID: "r", Name: "read", Args: `{"path":"/etc/hostname"}`}),
		llmtest.Text("fine"),
	}}, nil, func(o *Options) { o.Policy = askPolicy{}; o.Front.Approver = appr })
	if _, err := h.run("read the hostname"); err != nil {
		t.Fatal(err)
	}
	if len(appr.reqs) != 1 {
		t.Fatalf("%d approval interactions, want exactly 1", len(appr.reqs))
	}
	r := appr.reqs[0]
	if len(r.Reasons) != 2 || !r.PolicyAsk || !r.Danger || !strings.Contains(r.Reasons[1], "outside") {
		t.Fatalf("aggregated request %+v", r)
	}
	msg := failure(t, h.toolResults(1)["r"])
	if !strings.Contains(msg, "denied") || !strings.Contains(msg, "not that file") {
		t.Fatalf("denial result %q", msg)
	}
}

// TestAlwaysIsNeverRememberedForDanger: whatever a front end sends, an
// "always" is remembered for a plain policy ask, and only for one.
func TestAlwaysIsNeverRememberedForDanger(t *testing.T) {
	appr := &countingApprover{reply: permission.Reply{Approved: true, Always: true}}
	var remembered []string
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.ToolCall{ID: "d", Name: "read", Args: `{"path":"/etc/hostname"}`}),
		llmtest.Calls(llmtest.ToolCall{ID: "p", Name: "read", Args: `{"path":"a.txt"}`}),
		llmtest.Text("fine"),
	}}, nil, func(o *Options) {
		o.Policy, o.Front.Approver = askPolicy{}, appr
		o.OnAlways = func(tool, subject string) error { remembered = append(remembered, subject); return nil }
	})
	h.write("a.txt", "a\n")
	if _, err := h.run("read both"); err != nil {
		t.Fatal(err)
	}
	if len(appr.reqs) != 2 || !appr.reqs[0].Danger || appr.reqs[1].Danger {
		t.Fatalf("requests %+v", appr.reqs)
	}
	if len(remembered) != 1 || !strings.Contains(remembered[0], "a.txt") {
		t.Fatalf("remembered %q: only the plain ask's", remembered)
	}
}

func TestOutsidePathDeniedWithoutApprover(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.ToolCall{ID: "r", Name: "read", Args: `{"path":"../../etc/passwd"}`}),
		llmtest.Text("fine"),
	}}, nil)
	if _, err := h.run("read passwd"); err != nil {
		t.Fatal(err)
	}
	res := h.toolResults(1)["r"]
	if msg := failure(t, res); !strings.Contains(msg, "denied") || strings.Contains(res, "root:") {
		t.Fatalf("outside read was not denied: %s", res)
	}
}

func TestCancelMidStreamKeepsPartialText(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Text: strings.Repeat("word ", 200), ChunkSize: 5, TokenDelay: 5 * time.Millisecond},
	}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.orch.opts.Front.Sink = &cancelOnText{recorder: h.sink, cancel: cancel, after: 5}
	out, err := h.orch.RunInput(ctx, "talk")
	if !errors.Is(err, context.Canceled) || out.State != event.StateAborted {
		t.Fatalf("want aborted with context.Canceled, got %+v %v", out, err)
	}
	msgs := h.orch.Session().Messages
	last := msgs[len(msgs)-1]
	if last.Role != chat.RoleAssistant || !last.Interrupted || last.Content == "" || len(last.Content) >= 1000 {
		t.Fatalf("partial message not kept as interrupted: %+v", last)
	}
}

type cancelOnText struct {
	*recorder
	cancel func()
	after  int
	n      int
}

func (c *cancelOnText) Emit(e event.Event) {
	c.recorder.Emit(e)
	if _, ok := e.(event.TextDelta); ok {
		if c.n++; c.n == c.after {
			c.cancel()
		}
	}
}

func TestReusedCallIDsStillRunEveryCall(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.ToolCall{ID: "call_0", Name: "bash", Args: `{"command":"echo a >> log"}`},
			llmtest.ToolCall{ID: "call_0", Name: "bash", Args: `{"command":"echo b >> log"}`}),
		llmtest.Calls(llmtest.ToolCall{ID: "call_0", Name: "bash", Args: `{"command":"echo c >> log"}`}),
		llmtest.Text("done"),
	}}, nil)
	if _, err := h.run("log three lines"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(h.dir, "log"))
	if err != nil || string(b) != "a\nb\nc\n" {
		t.Fatalf("log = %q, %v: every call must run once", b, err)
	}
	if got := len(h.toolResults(1)); got != 2 {
		t.Fatalf("%d distinct results for two calls with one id", got)
	}
}

func TestOversizedResponseFailsReadably(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Text: strings.Repeat("x", 200<<10), ChunkSize: 4 << 10},
	}}, nil, func(o *Options) { o.Limits.MaxResponseBytes = 64 << 10 })
	out, err := h.run("talk forever")
	if err == nil || out.State != event.StateFailed || !strings.Contains(err.Error(), "runtime.max_response_bytes") {
		t.Fatalf("got %+v %v", out, err)
	}
	for _, m := range h.orch.Session().Messages {
		if m.Role == chat.RoleAssistant {
			t.Fatal("an oversized response was kept in the history")
		}
	}
}
