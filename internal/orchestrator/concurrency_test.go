package orchestrator

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/tools"
)

// span is when one call of a timed tool ran.
type span struct {
	id         string
	start, end time.Time
}

// timedTool is a real Tool that takes a while and records when it ran, so
// scheduling is asserted from recorded timestamps, not wall-clock limits.
type timedTool struct {
	name     string
	readOnly bool
	mu       *sync.Mutex
	spans    *[]span
}

func (t timedTool) Name() string        { return t.name }
func (t timedTool) Description() string { return "waits, then answers" }
func (t timedTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)
}
func (t timedTool) Facts() tools.Facts {
	return tools.Facts{Kind: chat.ToolOther, Effect: tools.EffectOpen}
}

func (t timedTool) Prepare(c *tools.Call) error {
	c.ReadOnly = t.readOnly
	return nil
}

func (t timedTool) Run(ctx context.Context, c *tools.Call) (tools.Result, error) {
	var a struct{ ID string }
	_ = json.Unmarshal(c.Input, &a)
	start := time.Now()
	select {
	case <-time.After(150 * time.Millisecond):
	case <-ctx.Done():
	}
	t.mu.Lock()
	*t.spans = append(*t.spans, span{a.ID, start, time.Now()})
	t.mu.Unlock()
	return tools.Result{OK: true, Content: "done " + a.ID}, nil
}

func timedTools() (slow, mut timedTool, spans func() []span) {
	var mu sync.Mutex
	var s []span
	slow = timedTool{name: "slowread", readOnly: true, mu: &mu, spans: &s}
	mut = timedTool{name: "slowwrite", readOnly: false, mu: &mu, spans: &s}
	return slow, mut, func() []span { mu.Lock(); defer mu.Unlock(); return append([]span(nil), s...) }
}

func TestReadOnlyCallsOverlap(t *testing.T) {
	slow, _, spans := timedTools()
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(
			llmtest.ToolCall{ID: "a", Name: "slowread", Args: `{"id":"a"}`},
			llmtest.ToolCall{ID: "b", Name: "slowread", Args: `{"id":"b"}`},
		),
		llmtest.Text("both read"),
	}}, []tools.Tool{slow})
	if _, err := h.run("read two things"); err != nil {
		t.Fatal(err)
	}
	s := spans()
	if len(s) != 2 {
		t.Fatalf("%d calls ran", len(s))
	}
	if !(s[0].start.Before(s[1].end) && s[1].start.Before(s[0].end)) {
		t.Fatalf("read-only calls did not overlap: %+v", s)
	}
	assertResultOrder(t, h, "a", "b")
}

func TestMutatingBatchRunsSeriallyInOrder(t *testing.T) {
	slow, mut, spans := timedTools()
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(
			llmtest.ToolCall{ID: "w", Name: "slowwrite", Args: `{"id":"w"}`},
			llmtest.ToolCall{ID: "r", Name: "slowread", Args: `{"id":"r"}`},
		),
		llmtest.Text("done"),
	}}, []tools.Tool{slow, mut})
	if _, err := h.run("write then read"); err != nil {
		t.Fatal(err)
	}
	s := spans()
	if len(s) != 2 || s[0].id != "w" || s[1].id != "r" || s[1].start.Before(s[0].end) {
		t.Fatalf("calls did not run serially in the model's order: %+v", s)
	}
	assertResultOrder(t, h, "w", "r")
}

// assertResultOrder checks the tool messages follow the model's order.
func assertResultOrder(t *testing.T, h *harness, ids ...string) {
	t.Helper()
	var got []string
	for _, m := range h.orch.Session().Messages {
		if m.ToolCallID != "" {
			got = append(got, m.ToolCallID)
		}
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Fatalf("result order %v, want %v", got, ids)
	}
}
