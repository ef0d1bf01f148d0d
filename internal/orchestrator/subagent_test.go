package orchestrator

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/session"
)

var subCaps = func(o *Options) {
	o.Subagents = SubagentOptions{MaxConcurrent: 2, MaxPerTurn: 2, TokenBudget: 1_000_000, MaxSteps: 5}
}

func TestTwoSubagentsReadConcurrently(t *testing.T) {
	// A real store: both subagents record their runs while they overlap.
	store, err := session.Open(session.StoreOptions{Dir: filepath.Join(t.TempDir(), ".coder")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	slow := 60 * time.Millisecond
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(
			llmtest.ToolCall{ID: "t1", Name: "task", Args: `{"description":"look at a","prompt":"read a.txt and report"}`},
			llmtest.ToolCall{ID: "t2", Name: "task", Args: `{"description":"look at a too","prompt":"read a.txt and report"}`},
		),
		// Both subagents' first calls are in flight together, so both get this step.
		{ToolCalls: []llmtest.ToolCall{llmtest.Call("read", `{"path":"a.txt"}`)}, TokenDelay: slow},
		{Text: "a.txt says hello", TokenDelay: slow},
		llmtest.Text("Both subagents agree."),
	}}, nil, subCaps, func(o *Options) { o.Persistence.Store = store })
	h.write("a.txt", "hello\n")
	out, err := h.run("investigate in parallel")
	if err != nil || out.Result != "Both subagents agree." {
		t.Fatalf("turn: %+v %v", out, err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
	a, b := reqs[1], reqs[2]
	if !(a.Start.Before(b.End) && b.Start.Before(a.End)) {
		t.Fatalf("subagents' first calls did not overlap: %v-%v and %v-%v", a.Start, a.End, b.Start, b.End)
	}
	// A subagent has its own history: only its prompt, not the parent's.
	if msgs := a.Messages(); len(msgs) != 1 || msgs[0].Text != "read a.txt and report" {
		t.Fatalf("subagent history %+v", msgs)
	}
	if names := a.ToolNames(); strings.Join(names, ",") != "read,list,glob,grep" {
		t.Fatalf("explore subagent tools %v", names)
	}
	res := h.toolResults(len(reqs) - 1)
	for _, id := range []string{"t1", "t2"} {
		if !strings.Contains(res[id], "a.txt says hello") {
			t.Fatalf("task %s result %q", id, res[id])
		}
	}
	tagged := 0
	for _, e := range h.sink.all() {
		if s, ok := e.(event.Subagent); ok && s.Event.Kind() == "tool_start" {
			tagged++
		}
	}
	if tagged != 2 {
		t.Fatalf("%d tagged subagent tool events, want 2", tagged)
	}
	s, err := store.Load(context.Background(), h.orch.conv.sess.ID)
	if err != nil || len(s.Subagents) != 2 || s.Subagents[0].TaskCallID == s.Subagents[1].TaskCallID {
		t.Fatalf("stored runs: %+v (%v)", s, err)
	}
}

func TestSubagentCapRefusesAThird(t *testing.T) {
	task := func(id string) llmtest.ToolCall {
		return llmtest.ToolCall{ID: id, Name: "task", Args: `{"prompt":"say hi"}`}
	}
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(task("t1"), task("t2"), task("t3")),
		{Text: "hi", TokenDelay: 30 * time.Millisecond},
		llmtest.Text("hi"),
		llmtest.Text("done"),
	}}, nil, subCaps)
	if _, err := h.run("fan out"); err != nil {
		t.Fatal(err)
	}
	res := h.toolResults(len(h.srv.Requests()) - 1)
	refused := 0
	for _, id := range []string{"t1", "t2", "t3"} {
		if strings.Contains(res[id], "subagent refused: at most 2") {
			refused++
		}
	}
	if refused != 1 {
		t.Fatalf("%d refused, want exactly 1: %v", refused, res)
	}
}

func TestCancelStopsAllSubagents(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(
			llmtest.ToolCall{ID: "t1", Name: "task", Args: `{"prompt":"talk"}`},
			llmtest.ToolCall{ID: "t2", Name: "task", Args: `{"prompt":"talk"}`},
		),
		{Text: strings.Repeat("slow ", 400), ChunkSize: 5, TokenDelay: 20 * time.Millisecond},
	}}, nil, subCaps)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = h.srv.WaitRequests(ctx, 3) // the parent's call and both subagents'
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	out, err := h.orch.RunInput(ctx, "two slow subagents")
	if !errors.Is(err, context.Canceled) || out.State != event.StateAborted {
		t.Fatalf("want aborted, got %+v %v", out, err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("cancel did not stop the subagents' streams")
	}
	// Both calls got a result, so the history stays valid.
	n := 0
	for _, m := range h.orch.Session().Messages {
		if m.ToolCallID == "t1" || m.ToolCallID == "t2" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d task results recorded, want 2", n)
	}
}
