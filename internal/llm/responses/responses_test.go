package responses

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
)

const testKey = "sk-test-responses-0123456789"

func stream(t *testing.T, p llm.Provider, req llm.Request) (*llm.Accumulator, error) {
	t.Helper()
	var a llm.Accumulator
	n := 0
	err := p.Stream(context.Background(), req, func(d chat.MessageDelta) {
		n++
		if d.Seq != 0 || d.RunID != "" {
			t.Errorf("delta %d carries an identity (%q, Seq %d): llm.WithRetry stamps it, once", n, d.RunID, d.Seq)
		}
		a.Add(d)
	})
	return &a, err
}

var bashTool = []chat.ToolSpec{{Name: "bash", Description: "Run a command.", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}}

// TestToolLoopPassesReasoningBack runs two model calls: reasoning, a
// comment and a function call, then the answer; the second request must
// carry the reasoning item (its encrypted content and its id, not its
// status), the comment with its phase, the call and its output, with
// nothing stored at OpenAI.
func TestToolLoopPassesReasoningBack(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Reasoning: "**Listing**\n\nI should list the files.", Text: "Listing.", ToolCalls: []llmtest.ToolCall{llmtest.Call("bash", `{"command":"ls"}`)},
			Usage: chat.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 30}},
		{Text: "Two files.", Check: func(r llmtest.Request) error {
			var body struct {
				Store   bool     `json:"store"`
				Include []string `json:"include"`
			}
			_ = json.Unmarshal(r.Body, &body)
			msgs := r.Messages()
			if body.Store || len(body.Include) != 1 || body.Include[0] != "reasoning.encrypted_content" {
				return fmt.Errorf("store %v include %v", body.Store, body.Include)
			}
			if r.System() != "You are coder." || !reflect.DeepEqual(r.ToolNames(), []string{"bash"}) {
				return fmt.Errorf("instructions %q tools %v", r.System(), r.ToolNames())
			}
			if len(msgs) != 3 || len(msgs[1].ReasoningItems) != 1 || msgs[2].Role != "tool" || msgs[2].ToolCallID != "call_0_0" {
				return fmt.Errorf("input %+v", msgs)
			}
			item := msgs[1].ReasoningItems[0]
			if !strings.Contains(item, `"encrypted_content":"`+llmtest.FakeEncrypted(0)+`"`) ||
				!strings.Contains(item, `"id":"rs_llmtest_0"`) || strings.Contains(item, `"status"`) {
				return fmt.Errorf("reasoning item sent back %s", item)
			}
			if msgs[1].Text != "Listing." || !reflect.DeepEqual(msgs[1].Phases, []string{"commentary"}) {
				return fmt.Errorf("comment sent back %q phases %q", msgs[1].Text, msgs[1].Phases)
			}
			return nil
		}},
	}})
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL(), APIKey: testKey, Catalog: "openai"}, Model: "gpt-5"})
	req := llm.Request{RunID: "r", System: "You are coder.", Tools: bashTool, Messages: []chat.Message{{Role: chat.RoleUser, Content: "list"}}}
	a, err := stream(t, p, req)
	if err != nil {
		t.Fatal(err)
	}
	m := a.Message()
	if m.Reasoning != "**Listing**\n\nI should list the files." || len(m.ReasoningBlocks) != 2 ||
		!strings.Contains(string(m.ReasoningBlocks[0].Raw), llmtest.FakeEncrypted(0)) {
		t.Fatalf("reasoning %q blocks %+v", m.Reasoning, m.ReasoningBlocks)
	}
	if want := []chat.ToolCall{{ID: "call_0_0", Name: "bash", Arguments: `{"command":"ls"}`}}; !reflect.DeepEqual(m.ToolCalls, want) {
		t.Fatalf("calls %+v", m.ToolCalls)
	}
	if a.Usage() != (chat.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 30}) || a.StopReason() != "completed" {
		t.Fatalf("usage %+v stop %q", a.Usage(), a.StopReason())
	}
	req.Messages = append(req.Messages, m, chat.Message{Role: chat.RoleTool, ToolCallID: "call_0_0", Content: "a.go\nb.go"})
	a, err = stream(t, p, req)
	if err != nil || a.Message().Content != "Two files." {
		t.Fatalf("second call: %v %+v", err, a.Message())
	}
}

func TestIncompleteIsReportedAsTheOutputLimit(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Reasoning: "Thinking long.", Truncated: true}}})
	a, err := stream(t, New(Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL()}, Model: "gpt-5"}), llm.Request{RunID: "r"})
	if err != nil || a.StopReason() != "max_output_tokens" || !llm.Truncated(a.StopReason()) {
		t.Fatalf("err %v stop %q", err, a.StopReason())
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fault     llmtest.Fault
		retryable bool
		msg       string
	}{
		{"429", llmtest.Fault{Kind: llmtest.FaultStatus, Status: 429, RetryAfter: "1"}, true, "OpenAI: HTTP 429: Rate limit reached"},
		{"401 echoing the key", llmtest.Fault{Kind: llmtest.FaultStatus, Status: 401, Message: "Incorrect API key provided: " + testKey}, false, "OpenAI: HTTP 401: Incorrect API key provided: [REDACTED]"},
		{"error event", llmtest.Fault{Kind: llmtest.FaultStreamError, AfterChunks: 3}, true, "OpenAI: The server had an error"},
		{"cut", llmtest.Fault{Kind: llmtest.FaultCut, AfterChunks: 4}, true, "OpenAI: stream ended before the response was complete"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: "never", Faults: []llmtest.Fault{tt.fault}}}})
			p := New(Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL(), APIKey: testKey, Label: "OpenAI", Timeout: 5 * time.Second}, Model: "gpt-5"})
			_, err := stream(t, p, llm.Request{RunID: "r"})
			var e *llm.Error
			if !errors.As(err, &e) || e.Retryable != tt.retryable || !strings.HasPrefix(err.Error(), tt.msg) || strings.Contains(err.Error(), testKey) {
				t.Fatalf("err = %v (retryable %v)", err, e != nil && e.Retryable)
			}
		})
	}
}

func TestFailedResponse(t *testing.T) {
	t.Parallel()
	d := newDecoder(func(chat.MessageDelta) {}, "OpenAI", "")
	_, err := d.event("", []byte(`{"type":"response.failed","response":{"status":"failed","error":{"code":"rate_limit_exceeded","message":"Request too large for gpt-4o-mini."}}}`))
	if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "Request too large") {
		t.Fatalf("err = %v", err)
	}
}

// TestRequestShapedByCatalog: reasoning parameters only for a model that
// reasons, the effort clamped to its levels, the output capped.
func TestRequestShapedByCatalog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cfg       Config
		reasoning string // JSON, "" for none
		max       float64
	}{
		{Config{Model: "gpt-5", ReasoningEffort: "max", MaxTokens: 1_000_000}, `{"effort":"high","summary":"auto"}`, 128_000},
		{Config{Model: "gpt-5"}, `{"summary":"auto"}`, 0},
		{Config{Model: "gpt-4.1", ReasoningEffort: "high", MaxTokens: 500}, "", 500},
		{Config{Model: "my-proxy-model", ReasoningEffort: "low"}, `{"effort":"low","summary":"auto"}`, 0},
		{Config{Model: "my-proxy-model"}, "", 0},
	}
	for _, tt := range tests {
		srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("ok")}})
		cfg := tt.cfg
		cfg.BaseURL, cfg.Catalog = srv.OpenAIBaseURL(), "openai"
		if _, err := stream(t, New(cfg), llm.Request{RunID: "r", Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}}); err != nil {
			t.Fatal(err)
		}
		var body map[string]json.RawMessage
		_ = json.Unmarshal(srv.Requests()[0].Body, &body)
		var max float64
		_ = json.Unmarshal(body["max_output_tokens"], &max)
		if string(body["reasoning"]) != tt.reasoning || max != tt.max || (tt.reasoning == "") != (body["include"] == nil) {
			t.Errorf("%s: reasoning %s include %s max %v; want %s %v", cfg.Model, body["reasoning"], body["include"], max, tt.reasoning, tt.max)
		}
	}
}

// TestForWireHonoursANamedType: a person who names "openai" for
// api.openai.com gets Chat Completions for gpt-5 and o3 as asked; left
// unnamed, those go to the Responses API; "openai-responses" is the
// Responses API anywhere.
func TestForWireHonoursANamedType(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{llmtest.Text("ok")}})
	tests := []struct {
		typ     string
		named   bool
		catalog string
		want    string
	}{
		{"openai", true, "openai", "/v1/chat/completions"},
		{"openai", false, "openai", "/v1/responses"},
		{"openai-responses", true, "openai", "/v1/responses"},
		{"openai-responses", true, "deepseek", "/v1/responses"},
		{"openai", false, "openrouter", "/v1/chat/completions"},
	}
	for _, tt := range tests {
		for _, model := range []string{"gpt-5", "o3-2025-04-16"} {
			p := ForWire(Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL(), APIKey: testKey, Catalog: tt.catalog}, Model: model}, tt.typ, tt.named)
			if a, err := stream(t, p, llm.Request{RunID: "r"}); err != nil || a.Message().Content != "ok" {
				t.Fatalf("%+v %s: %v", tt, model, err)
			}
			r := srv.Requests()
			if got := r[len(r)-1].Path; got != tt.want {
				t.Errorf("%s (named %v) on %s, %s: %s, want %s", tt.typ, tt.named, tt.catalog, model, got, tt.want)
			}
		}
	}
}

func TestAutoPicksTheWirePerModel(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{llmtest.Text("ok")}})
	p := Auto(Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL(), APIKey: testKey, Catalog: "openai"}, Model: "gpt-4.1"})
	for _, model := range []string{"", "gpt-5", "o3-2025-04-16", "gpt-4.1"} {
		if a, err := stream(t, p, llm.Request{RunID: "r", Model: model}); err != nil || a.Message().Content != "ok" {
			t.Fatalf("%q: %v", model, err)
		}
	}
	var paths []string
	for _, r := range srv.Requests() {
		paths = append(paths, r.Path)
	}
	want := []string{"/v1/chat/completions", "/v1/responses", "/v1/responses", "/v1/chat/completions"}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("paths %v, want %v", paths, want)
	}
	// Elsewhere (no catalog provider "openai") a gpt-5 stays on Chat Completions.
	q := Auto(Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL(), Catalog: "openrouter"}, Model: "gpt-5"})
	if _, err := stream(t, q, llm.Request{RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests(); r[len(r)-1].Path != "/v1/chat/completions" {
		t.Fatalf("OpenRouter went to %s", r[len(r)-1].Path)
	}
}
