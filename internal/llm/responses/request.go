package responses

import (
	"encoding/json"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/catalog"
)

// The request body of POST /v1/responses. Nothing is stored at OpenAI
// (store: false): the whole history goes in input every time, reasoning
// items with their encrypted content included. The input items are not in
// the struct: they are encoded message by message (cached from call to
// call) and follow the other fields; see encode.
type request struct {
	Model             string     `json:"model"`
	Instructions      string     `json:"instructions,omitempty"`
	Tools             []tool     `json:"tools,omitempty"`
	Stream            bool       `json:"stream"`
	Store             bool       `json:"store"`
	Include           []string   `json:"include,omitempty"`
	Reasoning         *reasoning `json:"reasoning,omitempty"`
	MaxOutputTokens   int        `json:"max_output_tokens,omitempty"`
	ParallelToolCalls bool       `json:"parallel_tool_calls"`
}

type reasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary"`
}

type tool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// The input items.
type (
	message struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []part `json:"content"`
	}
	part struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	functionCall struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	functionCallOutput struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output string `json:"output"`
	}
)

// encode builds the body. Reasoning is asked for, with summaries to show
// and its encrypted content to pass back, from models that reason (by the
// catalog) or when an effort is configured for an unknown one; a model
// known not to reason would reject the parameters.
func (p *Provider) encode(req llm.Request) (*llm.Body, error) {
	body := request{
		Model:             req.Model,
		Instructions:      req.System,
		Tools:             tools(req.Tools),
		Stream:            true,
		ParallelToolCalls: true,
	}
	if body.Model == "" {
		body.Model = p.cfg.Model
	}
	m, known := catalog.Lookup(p.cfg.Catalog, body.Model)
	n := req.MaxTokens
	if n <= 0 {
		n = p.cfg.MaxTokens
	}
	body.MaxOutputTokens = m.CapOutput(n)
	effort := p.cfg.ReasoningEffort
	if (known && m.Reasons()) || (!known && effort != "") {
		body.Reasoning = &reasoning{Effort: m.Effort(effort), Summary: "auto"}
		body.Include = []string{"reasoning.encrypted_content"}
	}
	enc, err := p.history.Make("", req.Messages, encodeItems)
	if err != nil {
		return nil, err
	}
	b, err := llm.NewBody(body)
	if err != nil {
		return nil, err
	}
	b.Array("input", len(enc))
	for _, its := range enc {
		for _, it := range its {
			b.Item(it)
		}
	}
	b.EndArray()
	b.End()
	return b, nil
}

// encodeItems is a message's items, each encoded (none for an empty user
// message).
func encodeItems(e *llm.Encoder, m *chat.Message) ([][]byte, error) {
	var out [][]byte
	for _, it := range items(m) {
		b, err := e.Encode(it)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// items turns one history message into input items: an assistant message
// becomes its reasoning items (as they came, less their ids: nothing is
// stored to refer to), its text, then its function calls.
func items(m *chat.Message) []any {
	var out []any
	switch m.Role {
	case chat.RoleAssistant:
		out = append(out, reasoningItems(m)...)
		if m.Content != "" {
			out = append(out, message{Type: "message", Role: "assistant", Content: []part{{Type: "output_text", Text: m.Content}}})
		}
		for _, c := range m.ToolCalls {
			args := c.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			out = append(out, functionCall{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: args})
		}
	case chat.RoleTool:
		out = append(out, functionCallOutput{Type: "function_call_output", CallID: m.ToolCallID, Output: m.Content})
	default:
		if m.Content != "" {
			out = append(out, message{Type: "message", Role: "user", Content: []part{{Type: "input_text", Text: m.Content}}})
		}
	}
	return out
}

func reasoningItems(m *chat.Message) []any {
	var out []any
	for _, b := range m.ReasoningBlocks {
		if b.Kind != chat.ReasoningResponsesItem || b.Raw == "" {
			continue
		}
		var item map[string]json.RawMessage
		if json.Unmarshal([]byte(b.Raw), &item) != nil {
			continue
		}
		delete(item, "id") // with store: false an id refers to nothing
		delete(item, "status")
		out = append(out, item)
	}
	return out
}

func tools(in []chat.ToolSpec) []tool {
	var out []tool
	for _, t := range in {
		out = append(out, tool{Type: "function", Name: t.Name, Description: t.Description, Parameters: llm.ToolSchema(t)})
	}
	return out
}
