package orchestrator

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/tools"
)

// recorder is a Sink that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
	// onEmit, when set, is called with each event (from the emitter's goroutine).
	onEmit func(event.Event)
}

func (r *recorder) Emit(e event.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	f := r.onEmit
	r.mu.Unlock()
	if f != nil {
		f(e)
	}
}

func (r *recorder) all() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...)
}

func (r *recorder) kinds() []string {
	var ks []string
	for _, e := range r.all() {
		ks = append(ks, e.Kind())
	}
	return ks
}

// harness is an orchestrator wired to the fake LLM server over loopback, with
// the real tools working in a temp workspace.
type harness struct {
	t    *testing.T
	srv  *llmtest.Server
	orch *Orchestrator
	sink *recorder
	dir  string
}

type harnessOpt func(*Options)

func newHarness(t *testing.T, sc llmtest.Scenario, extra []tools.Tool, opts ...harnessOpt) *harness {
	t.Helper()
	srv := llmtest.NewServer(t, sc)
	dir := t.TempDir()
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	all := append(tools.Builtins(tools.Env{Workspace: ws, CommandTimeout: 10 * time.Second, OutputLimit: 64 << 10}), extra...)
	reg, err := tools.NewRegistry(all...)
	if err != nil {
		t.Fatal(err)
	}
	prov := llm.WithRetry(openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL(), APIKey: "sk-test"}, Model: "fake"}),
		llm.RetryPolicy{MaxRetries: 2, BaseDelay: time.Millisecond})
	sink := &recorder{}
	o := Options{
		Model: Model{Provider: prov, Name: "fake"}, Tools: reg, Front: Front{Sink: sink},
		Workspace: ws.Root, Limits: Limits{MaxSteps: 10, ContextLimit: 100_000},
	}
	for _, f := range opts {
		f(&o)
	}
	orch, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, srv: srv, orch: orch, sink: sink, dir: ws.Root}
}

func (h *harness) write(name, content string) {
	h.t.Helper()
	writeTestFile(h.t, h.dir, name, content)
}

func (h *harness) run(input string) (Outcome, error) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return h.orch.RunInput(ctx, input)
}

// toolResults returns the tool results the given recorded request carried back.
func (h *harness) toolResults(req int) map[string]string {
	h.t.Helper()
	reqs := h.srv.Requests()
	if req >= len(reqs) {
		h.t.Fatalf("only %d requests recorded, want request %d", len(reqs), req)
	}
	out := map[string]string{}
	for _, m := range reqs[req].ToolResults() {
		out[m.ToolCallID] = m.Text
	}
	return out
}

// failure decodes a standard failure result.
func failure(t *testing.T, content string) string {
	t.Helper()
	var f struct {
		OK    *bool  `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(content), &f); err != nil || f.OK == nil || *f.OK {
		t.Fatalf("want {\"ok\":false,\"error\":...}, got %s", content)
	}
	return f.Error
}

func writeTestFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
