package orchestrator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm/llmtest"
)

func TestTruncatedTextIsContinuedOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Text: "The first half, ", Truncated: true},
		{Text: "and the second half."},
	}}, nil)
	out, err := h.run("write a long answer")
	if err != nil || out.State != event.StateCompleted {
		t.Fatalf("err %v state %v", err, out.State)
	}
	if out.Result != "The first half, and the second half." {
		t.Fatalf("result %q", out.Result)
	}
	msgs := h.srv.Requests()[1].Messages()
	if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(last.Text, "cut off by the output limit") {
		t.Fatalf("continuation asked with %+v", last)
	}
}

func TestTruncatedAgainEndsTheTurn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Text: "Part one, ", Truncated: true},
		{Text: "part two, ", Truncated: true},
	}}, nil)
	out, err := h.run("write a long answer")
	var te *TruncatedError
	if !errors.Is(err, ErrTruncated) || !errors.As(err, &te) || !te.Continued || out.State != event.StateFailed {
		t.Fatalf("err %v state %v", err, out.State)
	}
	if out.Result != "Part one, part two, " || !strings.Contains(out.Reason, "again after it was asked to continue") {
		t.Fatalf("result %q reason %q", out.Result, out.Reason)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Fatalf("%d model calls, want 2", n)
	}
}

func TestReasoningThatUsedTheBudgetFails(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Reasoning: "Let me think about every file in turn…", Truncated: true},
	}}, nil)
	out, err := h.run("explain the repository")
	var te *TruncatedError
	if !errors.As(err, &te) || !te.Reasoning || te.OutputTokens == 0 || out.State != event.StateFailed {
		t.Fatalf("err %v state %v", err, out.State)
	}
	if !strings.Contains(out.Reason, "reasoning used the whole budget") || !strings.Contains(out.Reason, "provider.max_tokens") {
		t.Fatalf("reason %q", out.Reason)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("%d model calls: a reasoning-only cut is not continued", n)
	}
}

func TestToolCallsCutAreNotRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		{ToolCalls: []llmtest.ToolCall{llmtest.Call("write", `{"path":"out.txt","content":"hal`)}, Truncated: true},
		llmtest.Text("next turn"),
	}}, nil)
	_, err := h.run("write a file")
	var te *TruncatedError
	if !errors.As(err, &te) || !te.ToolCalls {
		t.Fatalf("err %v", err)
	}
	// The history stays valid: the next turn's request answers the call.
	if _, err := h.run("again"); err != nil {
		t.Fatal(err)
	}
	res := h.toolResults(1)
	if msg := failure(t, res["call_0_0"]); !strings.Contains(msg, "not run") {
		t.Fatalf("result %q", msg)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "out.txt")); !os.IsNotExist(err) {
		t.Fatalf("the cut call ran: %v", err)
	}
}
