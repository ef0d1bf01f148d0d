package openai

import (
	"encoding/json"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// sentBody runs one call with cfg against a fake server and returns the
// request body it received, decoded.
func sentBody(t *testing.T, cfg Config, msgs ...chat.Message) map[string]any {
	t.Helper()
	fs := serve(t, reply{body: textStream("ok") + done})
	cfg.BaseURL, cfg.APIKey = fs.url, testKey
	if len(msgs) == 0 {
		msgs = []chat.Message{{Role: chat.RoleUser, Content: "hi"}}
	}
	if _, err := collect(t, New(cfg), llm.Request{RunID: "r", Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(fs.requests()[0].body), &body); err != nil {
		t.Fatal(err)
	}
	return body
}

// TestRequestShapedByCatalog checks each rule that sets the output limit
// and the effort from the catalog (internal/llm/catalog/models.txt).
func TestRequestShapedByCatalog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cfg       Config
		param     string // the output-limit field sent
		limit     float64
		effort    any // nil: not sent
		forbidden string
	}{
		{"gpt-5 takes max_completion_tokens, capped at its 128k output, effort clamped to its highest",
			Config{Endpoint: llm.Endpoint{Catalog: "openai"}, Model: "gpt-5", MaxTokens: 500_000, ReasoningEffort: "max"},
			"max_completion_tokens", 128_000, "high", "max_tokens"},
		{"gpt-5 asked for no reasoning gets its least, minimal",
			Config{Endpoint: llm.Endpoint{Catalog: "openai"}, Model: "gpt-5", MaxTokens: 1000, ReasoningEffort: "none"},
			"max_completion_tokens", 1000, "minimal", "max_tokens"},
		{"o3 with a date suffix is still o3",
			Config{Endpoint: llm.Endpoint{Catalog: "openai"}, Model: "o3-2025-04-16", MaxTokens: 1000, ReasoningEffort: "low"},
			"max_completion_tokens", 1000, "low", "max_tokens"},
		{"gpt-4.1 reasons not: no reasoning_effort",
			Config{Endpoint: llm.Endpoint{Catalog: "openai"}, Model: "gpt-4.1", MaxTokens: 1000, ReasoningEffort: "high"},
			"max_completion_tokens", 1000, nil, "reasoning_effort"},
		{"an unknown model on api.openai.com still gets max_completion_tokens",
			Config{Endpoint: llm.Endpoint{Catalog: "openai"}, Model: "gpt-9-preview", MaxTokens: 1000, ReasoningEffort: "high"},
			"max_completion_tokens", 1000, "high", "max_tokens"},
		{"DeepSeek V4 maps medium to its lowest level, high",
			Config{Endpoint: llm.Endpoint{Catalog: "deepseek"}, Model: "deepseek-v4-pro", MaxTokens: 1000, ReasoningEffort: "medium"},
			"max_tokens", 1000, "high", "max_completion_tokens"},
		{"an unknown model on an unknown server: as configured",
			Config{Model: "my-local-model", MaxTokens: 1_000_000, ReasoningEffort: "xhigh"},
			"max_tokens", 1_000_000, "xhigh", "max_completion_tokens"},
		{"Kimi K2.5 toggles thinking, takes no effort",
			Config{Endpoint: llm.Endpoint{Catalog: "moonshotai-cn"}, Model: "kimi-k2.5", MaxTokens: 1000, ReasoningEffort: "high"},
			"max_tokens", 1000, nil, "reasoning_effort"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := sentBody(t, tt.cfg)
			if body[tt.param] != tt.limit {
				t.Errorf("%s = %v, want %v", tt.param, body[tt.param], tt.limit)
			}
			if body["reasoning_effort"] != tt.effort {
				t.Errorf("reasoning_effort = %v, want %v", body["reasoning_effort"], tt.effort)
			}
			if _, ok := body[tt.forbidden]; ok {
				t.Errorf("%s sent: %v", tt.forbidden, body)
			}
		})
	}
}

// assistantSent is the first assistant message of the body.
func assistantSent(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	for _, m := range body["messages"].([]any) {
		if mm := m.(map[string]any); mm["role"] == "assistant" {
			return mm
		}
	}
	t.Fatalf("no assistant message in %v", body)
	return nil
}

func toolTurn(m chat.Message) []chat.Message {
	m.Role = chat.RoleAssistant
	m.ToolCalls = append(m.ToolCalls, chat.ToolCall{ID: "c1", Name: "ls", Arguments: "{}"})
	if len(m.ToolCalls) > 1 {
		m.ToolCalls = m.ToolCalls[:1]
	}
	return []chat.Message{{Role: chat.RoleUser, Content: "go"}, m, {Role: chat.RoleTool, ToolCallID: "c1", Content: "a.go"}}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestReasoningSentBackWhereItCame(t *testing.T) {
	t.Parallel()
	detailSummary := `{"format":"openai-responses-v1","index":0,"summary":"Plan.","type":"reasoning.summary"}`
	detailEnc := `{"data":"gAAAAB","format":"openai-responses-v1","id":"rs_1","index":0,"type":"reasoning.encrypted"}`
	tests := []struct {
		name  string
		cfg   Config
		msg   chat.Message
		check func(t *testing.T, a map[string]any)
	}{
		{"DeepSeek: reasoning_content", Config{Endpoint: llm.Endpoint{Catalog: "deepseek"}, Model: "deepseek-v4-pro"},
			chat.Message{Reasoning: "Think.", ReasoningBlocks: []chat.ReasoningBlock{{Kind: chat.ReasoningContentField, Text: "Think."}}},
			func(t *testing.T, a map[string]any) {
				if a["reasoning_content"] != "Think." || a["reasoning"] != nil {
					t.Errorf("sent %v", a)
				}
			}},
		{"DeepSeek, a session stored before blocks: its text as reasoning_content", Config{Endpoint: llm.Endpoint{Catalog: "deepseek"}, Model: "deepseek-v4-pro"},
			chat.Message{Reasoning: "Old think."},
			func(t *testing.T, a map[string]any) {
				if a["reasoning_content"] != "Old think." {
					t.Errorf("sent %v", a)
				}
			}},
		{"OpenRouter: reasoning_details verbatim, encrypted entry included, text not repeated", Config{Endpoint: llm.Endpoint{Catalog: "openrouter"}, Model: "openai/gpt-5"},
			chat.Message{Reasoning: "Plan.", ReasoningBlocks: []chat.ReasoningBlock{
				{Kind: chat.ReasoningField, Text: "Plan."},
				{Kind: chat.ReasoningDetails, Raw: chat.RawJSON(detailSummary)},
				{Kind: chat.ReasoningDetails, Raw: chat.RawJSON(detailEnc)},
			}},
			func(t *testing.T, a map[string]any) {
				if got := jsonOf(a["reasoning_details"]); got != "["+detailSummary+","+detailEnc+"]" || a["reasoning"] != nil {
					t.Errorf("sent %v", a)
				}
			}},
		{"an unknown server that sent `reasoning` gets `reasoning`", Config{Model: "my-local-model"},
			chat.Message{ReasoningBlocks: []chat.ReasoningBlock{{Kind: chat.ReasoningField, Text: "Hmm."}}},
			func(t *testing.T, a map[string]any) {
				if a["reasoning"] != "Hmm." || a["reasoning_content"] != nil {
					t.Errorf("sent %v", a)
				}
			}},
		{"Gemini: each call's extra_content, and the message's", Config{Endpoint: llm.Endpoint{Catalog: "google"}, Model: "gemini-3-pro-preview"},
			chat.Message{ReasoningBlocks: []chat.ReasoningBlock{{Kind: chat.ReasoningExtraContent, Raw: `{"google":{"thought_signature":"msgSig"}}`}},
				ToolCalls: []chat.ToolCall{{ID: "c1", Name: "ls", Arguments: "{}", Extra: `{"google":{"thought_signature":"callSig"}}`}}},
			func(t *testing.T, a map[string]any) {
				call := a["tool_calls"].([]any)[0].(map[string]any)
				if jsonOf(call["extra_content"]) != `{"google":{"thought_signature":"callSig"}}` ||
					jsonOf(a["extra_content"]) != `{"google":{"thought_signature":"msgSig"}}` {
					t.Errorf("sent %v", a)
				}
			}},
		{"Mistral: thinking parts then the text, as content parts", Config{Endpoint: llm.Endpoint{Catalog: "mistral"}, Model: "magistral-medium-latest"},
			chat.Message{Content: "391", ReasoningBlocks: []chat.ReasoningBlock{{Kind: chat.ReasoningThinkingPart, Text: "17*23"}}},
			func(t *testing.T, a map[string]any) {
				want := `[{"thinking":[{"text":"17*23","type":"text"}],"type":"thinking"},{"text":"391","type":"text"}]`
				if got := jsonOf(a["content"]); got != want {
					t.Errorf("content %s, want %s", got, want)
				}
			}},
		{"Groq rejects reasoning fields: none sent", Config{Endpoint: llm.Endpoint{Catalog: "groq"}, Model: "openai/gpt-oss-120b"},
			chat.Message{ReasoningBlocks: []chat.ReasoningBlock{{Kind: chat.ReasoningField, Text: "Hmm."}, {Kind: chat.ReasoningContentField, Text: "Hmm."}}},
			func(t *testing.T, a map[string]any) {
				if a["reasoning"] != nil || a["reasoning_content"] != nil {
					t.Errorf("sent %v", a)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t, assistantSent(t, sentBody(t, tt.cfg, toolTurn(tt.msg)...)))
		})
	}
}
