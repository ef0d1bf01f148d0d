package openai

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/catalog"
)

// everyKindHistory is the worst history for an endpoint's rules: a tool
// turn carrying reasoning of every kind (a session that switched models
// between endpoints holds such turns), then a tool turn stored before
// reasoning blocks existed (its text only).
func everyKindHistory() []chat.Message {
	mixed := chat.Message{Role: chat.RoleAssistant, Content: "Looking.", Reasoning: "Plan.",
		ReasoningBlocks: []chat.ReasoningBlock{
			{Kind: chat.ReasoningContentField, Text: "Plan."},
			{Kind: chat.ReasoningField, Text: "Plan."},
			{Kind: chat.ReasoningDetails, Raw: `{"type":"reasoning.text","text":"Plan.","index":0}`},
			{Kind: chat.ReasoningThinkingPart, Text: "Plan."},
			{Kind: chat.ReasoningExtraContent, Raw: `{"google":{"thought_signature":"sig"}}`},
		},
		ToolCalls: []chat.ToolCall{{ID: "c1", Name: "ls", Arguments: "{}", Extra: `{"google":{"thought_signature":"callSig"}}`}}}
	legacy := chat.Message{Role: chat.RoleAssistant, Reasoning: "Old plan.",
		ToolCalls: []chat.ToolCall{{ID: "c2", Name: "ls", Arguments: "{}"}}}
	return []chat.Message{
		{Role: chat.RoleUser, Content: "go"},
		mixed, {Role: chat.RoleTool, ToolCallID: "c1", Content: "a.go"},
		legacy, {Role: chat.RoleTool, ToolCallID: "c2", Content: "b.go"},
	}
}

// fieldsSent names what a request body carries: its top-level fields,
// "assistant.<field>" for each field of an assistant message (and
// "assistant.content.thinking" for thinking parts in its content),
// "tool_call.<field>" for each field of a call, and "legacy.<field>" for
// the fields of the assistant message stored before blocks existed.
func fieldsSent(body map[string]any) []string {
	set := map[string]bool{}
	for k := range body {
		set[k] = true
	}
	var assistants []map[string]any
	for _, m := range body["messages"].([]any) {
		if mm := m.(map[string]any); mm["role"] == "assistant" {
			assistants = append(assistants, mm)
		}
	}
	for i, a := range assistants {
		prefix := "assistant."
		if i == 1 {
			prefix = "legacy."
		}
		for k := range a {
			set[prefix+k] = true
		}
		if parts, ok := a["content"].([]any); ok {
			for _, p := range parts {
				set[prefix+"content."+p.(map[string]any)["type"].(string)] = true
			}
		}
		calls, _ := a["tool_calls"].([]any)
		for _, c := range calls {
			for k := range c.(map[string]any) {
				set["tool_call."+k] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestRequestRulesPerEndpoint sends the worst history to each endpoint of
// the catalog's endpoint table, and to an unknown server (the control:
// it gets everything back, where it came), and checks what each request
// must and must not carry (the evidence for each rule is in the table,
// internal/llm/catalog/endpoints.go).
func TestRequestRulesPerEndpoint(t *testing.T) {
	t.Parallel()
	allReasoning := []string{"assistant.reasoning_content", "assistant.reasoning", "assistant.reasoning_details",
		"assistant.extra_content", "assistant.content.thinking", "tool_call.extra_content", "legacy.reasoning_content"}
	tests := []struct {
		endpoint, model string
		must, mustNot   []string
	}{
		{"", "my-local-model",
			[]string{"stream_options", "max_tokens", "assistant.reasoning_content", "assistant.reasoning_details",
				"assistant.extra_content", "assistant.content.thinking", "tool_call.extra_content"},
			[]string{"max_completion_tokens", "legacy.reasoning_content"}},
		{"mistral", "mistral-small-latest",
			[]string{"max_tokens", "assistant.content.thinking"},
			[]string{"stream_options", "max_completion_tokens", "assistant.reasoning_content", "assistant.reasoning",
				"assistant.reasoning_details", "assistant.extra_content", "tool_call.extra_content", "legacy.reasoning_content"}},
		{"mistral", "a-model-the-catalog-lacks",
			[]string{"max_tokens"}, []string{"stream_options", "max_completion_tokens", "assistant.reasoning_content"}},
		{"groq", "openai/gpt-oss-120b", []string{"stream_options", "max_tokens"}, allReasoning},
		{"cerebras", "zai-glm-4.7", []string{"stream_options", "max_tokens"}, allReasoning},
		{"cerebras", "gpt-oss-120b", []string{"assistant.reasoning"},
			[]string{"assistant.reasoning_content", "assistant.reasoning_details", "assistant.extra_content",
				"assistant.content.thinking", "tool_call.extra_content", "legacy.reasoning_content"}},
		{"openai", "gpt-4.1", []string{"stream_options", "max_completion_tokens"}, []string{"max_tokens"}},
		{"openai", "gpt-9-preview", []string{"max_completion_tokens"}, []string{"max_tokens"}},
		{"deepseek", "deepseek-v4-pro", []string{"assistant.reasoning_content", "legacy.reasoning_content", "max_tokens"},
			[]string{"max_completion_tokens"}},
		{"deepseek", "deepseek-chat", []string{"legacy.reasoning_content"}, nil},
		{"moonshotai", "kimi-k2.5", []string{"legacy.reasoning_content"}, nil},
		{"moonshotai-cn", "kimi-k2.5", []string{"legacy.reasoning_content"}, nil},
		// Details carry the reasoning whole: the text is not sent beside them.
		{"openrouter", "openai/gpt-5", []string{"assistant.reasoning_details", "stream_options"}, []string{"assistant.reasoning"}},
		{"google", "gemini-3-pro-preview", []string{"assistant.extra_content", "tool_call.extra_content"}, nil},
	}
	covered := map[string]bool{"anthropic": true} // the Messages API: internal/llm/anthropic
	for _, tt := range tests {
		covered[tt.endpoint] = true
		t.Run(tt.endpoint+"/"+tt.model, func(t *testing.T) {
			t.Parallel()
			sent := fieldsSent(sentBody(t, Config{Endpoint: llm.Endpoint{Catalog: tt.endpoint}, Model: tt.model, MaxTokens: 1000}, everyKindHistory()...))
			for _, f := range tt.must {
				if !slices.Contains(sent, f) {
					t.Errorf("%s not sent; sent %s", f, strings.Join(sent, " "))
				}
			}
			for _, f := range tt.mustNot {
				if slices.Contains(sent, f) {
					t.Errorf("%s sent; sent %s", f, strings.Join(sent, " "))
				}
			}
		})
	}
	// Every row with rules of its own has its case.
	for _, id := range catalog.Endpoints() {
		r := catalog.RulesFor(id, "")
		if !covered[id] && (!r.StreamOptions || r.TokenParam != catalog.MaxTokens || r.PassBack != nil || r.Required != "") {
			t.Errorf("endpoint %s has request rules and no case here", id)
		}
	}
}

// TestAliasTakesItsTargetsRules: a "-latest" or undated name shapes the
// request as its snapshot does; the name sent is the one configured.
func TestAliasTakesItsTargetsRules(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ endpoint, alias, target string }{
		{"mistral", "devstral-small-latest", "devstral-small-2507"},
		{"openai", "gpt-4o-latest", "gpt-4o"},
		{"openai", "gpt-5-chat", "gpt-5-chat-latest"},
	} {
		got := sentBody(t, Config{Endpoint: llm.Endpoint{Catalog: tt.endpoint}, Model: tt.alias, MaxTokens: 10_000_000})
		want := sentBody(t, Config{Endpoint: llm.Endpoint{Catalog: tt.endpoint}, Model: tt.target, MaxTokens: 10_000_000})
		if got["model"] != tt.alias {
			t.Errorf("%s sent as %v", tt.alias, got["model"])
		}
		delete(got, "model")
		delete(want, "model")
		if jsonOf(got) != jsonOf(want) {
			t.Errorf("%s: %s\n%s: %s", tt.alias, jsonOf(got), tt.target, jsonOf(want))
		}
		if want["max_tokens"] == float64(10_000_000) || want["max_completion_tokens"] == float64(10_000_000) {
			t.Errorf("%s: the output limit was not capped: %s", tt.target, jsonOf(want))
		}
	}
}
