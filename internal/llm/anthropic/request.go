package anthropic

import (
	"bytes"
	"encoding/json"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// The request body of POST /v1/messages.
type request struct {
	Model        string        `json:"model"`
	MaxTokens    int           `json:"max_tokens"`
	System       []textBlock   `json:"system,omitempty"`
	Messages     []message     `json:"messages"`
	Tools        []tool        `json:"tools,omitempty"`
	Thinking     *thinking     `json:"thinking,omitempty"`
	OutputConfig *outputConfig `json:"output_config,omitempty"`
	Stream       bool          `json:"stream"`
}

// thinking is {"type":"enabled","budget_tokens":N} or {"type":"adaptive"}.
type thinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens,omitempty"`
}

// outputConfig carries the effort of adaptive thinking.
type outputConfig struct {
	Effort string `json:"effort"`
}

type message struct {
	Role    string `json:"role"`
	Content []any  `json:"content"` // the *Block types below
}

type textBlock struct {
	Type  string        `json:"type"`
	Text  string        `json:"text"`
	Cache *cacheControl `json:"cache_control,omitempty"`
}

// cacheControl marks a prompt-cache breakpoint: everything up to and
// including the marked block is cached and reused by the next request with
// the same prefix.
type cacheControl struct {
	Type string `json:"type"`
}

var ephemeral = &cacheControl{Type: "ephemeral"}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type toolUseBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

type toolResultBlock struct {
	Type      string        `json:"type"`
	ToolUseID string        `json:"tool_use_id"`
	Content   string        `json:"content,omitempty"`
	IsError   bool          `json:"is_error,omitempty"`
	Cache     *cacheControl `json:"cache_control,omitempty"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
	Cache       *cacheControl   `json:"cache_control,omitempty"`
}

// emptyObject stands in for tool input that is not a JSON object;
// emptySchema for a tool that declares no parameters.
var (
	emptyObject = json.RawMessage(`{}`)
	emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)
)

// encode builds the JSON body for req.
func (p *Provider) encode(req llm.Request) ([]byte, error) {
	body := request{
		Model:     req.Model,
		MaxTokens: req.MaxTokens,
		Messages:  messages(req.Messages),
		Tools:     tools(req.Tools),
		Stream:    true,
	}
	if req.System != "" {
		body.System = []textBlock{{Type: "text", Text: req.System}}
	}
	markCache(&body)
	if body.Model == "" {
		body.Model = p.cfg.Model
	}
	p.shape(&body)
	return llm.MarshalBody(body)
}

// markCache sets the prompt-cache breakpoints: the tool list, the system
// prompt and the latest message. Tools and system never change within a
// session, and the history only grows, so each request reuses the cached
// prefix the previous one wrote (3 of the API's 4 breakpoints).
func markCache(b *request) {
	if n := len(b.Tools); n > 0 {
		b.Tools[n-1].Cache = ephemeral
	}
	if n := len(b.System); n > 0 {
		b.System[n-1].Cache = ephemeral
	}
	if n := len(b.Messages); n > 0 {
		blocks := b.Messages[n-1].Content
		switch blk := blocks[len(blocks)-1].(type) {
		case textBlock:
			blk.Cache = ephemeral
			blocks[len(blocks)-1] = blk
		case toolResultBlock:
			blk.Cache = ephemeral
			blocks[len(blocks)-1] = blk
		}
	}
}

// messages converts the history. Tool results become tool_result blocks in
// a user message; adjacent messages of one role are merged, as the API
// requires alternation; empty messages are left out.
func messages(in []chat.Message) []message {
	var out []message
	for i := range in {
		role, blocks := convert(&in[i])
		if len(blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, message{Role: role, Content: blocks})
	}
	for i := range out {
		if out[i].Role == "user" {
			resultsFirst(out[i].Content)
		}
	}
	return out
}

func convert(m *chat.Message) (role string, blocks []any) {
	switch m.Role {
	case chat.RoleTool:
		return "user", []any{toolResultBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content, IsError: m.IsError}}
	case chat.RoleAssistant:
		return "assistant", assistant(m)
	}
	if m.Content == "" {
		return "user", nil
	}
	return "user", []any{textBlock{Type: "text", Text: m.Content}}
}

// assistant is the thinking and redacted_thinking blocks, each as it came
// with its own signature (an unsigned one the API rejects, so it is left
// out), then text, then tool_use blocks.
func assistant(m *chat.Message) []any {
	var blocks []any
	for _, b := range m.ReasoningState() {
		switch {
		case b.Kind == chat.ReasoningThinking && b.Signature != "":
			blocks = append(blocks, thinkingBlock{Type: "thinking", Thinking: b.Text, Signature: b.Signature})
		case b.Kind == chat.ReasoningRedacted && b.Raw != "":
			blocks = append(blocks, json.RawMessage(b.Raw))
		}
	}
	if m.Content != "" {
		blocks = append(blocks, textBlock{Type: "text", Text: m.Content})
	}
	for _, c := range m.ToolCalls {
		blocks = append(blocks, toolUseBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input(c.Arguments)})
	}
	return blocks
}

// input is the model's arguments when they are a JSON object, else {}: the
// API rejects anything else, and the tool layer already reported the
// malformed call to the model in its result.
func input(args string) json.RawMessage {
	b := bytes.TrimSpace([]byte(args))
	if len(b) > 0 && b[0] == '{' && json.Valid(b) {
		return b
	}
	return emptyObject
}

// resultsFirst moves tool_result blocks to the front, keeping order: the
// API wants them before any other content of the user turn.
func resultsFirst(blocks []any) {
	var results, rest []any
	for _, b := range blocks {
		if _, ok := b.(toolResultBlock); ok {
			results = append(results, b)
		} else {
			rest = append(rest, b)
		}
	}
	if len(results) > 0 && len(rest) > 0 {
		copy(blocks, append(results, rest...))
	}
}

func tools(in []chat.ToolSpec) []tool {
	if len(in) == 0 {
		return nil
	}
	out := make([]tool, len(in))
	for i, t := range in {
		schema := t.Parameters
		if len(schema) == 0 || !json.Valid(schema) {
			schema = emptySchema
		}
		out[i] = tool{Name: t.Name, Description: t.Description, InputSchema: schema}
	}
	return out
}
