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
		// Phase is an assistant message's, as it came.
		Phase string `json:"phase,omitempty"`
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

// items turns one history message into input items. An assistant message
// becomes its output items in the order they came (outputItems), then its
// function calls.
func items(m *chat.Message) []any {
	var out []any
	switch m.Role {
	case chat.RoleAssistant:
		out = outputItems(m)
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

// outputItems are an assistant message's reasoning items and messages in
// the order they came. Each message keeps its phase ("commentary",
// "final_answer"): the API reference asks for it back, as dropping it
// degrades the model, and OpenAI's own recorded clients send it. When the
// messages' text no longer adds up to the message's (stored before they
// were kept, or changed since), the text goes as one message with the
// last phase seen.
func outputItems(m *chat.Message) []any {
	var msgs []message
	joined := ""
	for _, b := range m.ReasoningBlocks {
		if b.Kind == chat.ReasoningResponsesMessage {
			msg := messageItem(b.Raw)
			msgs = append(msgs, msg)
			joined += msg.Content[0].Text
		}
	}
	whole := len(msgs) > 0 && joined == m.Content
	var out []any
	for _, b := range m.ReasoningBlocks {
		switch {
		case b.Kind == chat.ReasoningResponsesItem:
			if it := reasoningItem(b.Raw); it != nil {
				out = append(out, it)
			}
		case b.Kind == chat.ReasoningResponsesMessage && whole:
			out = append(out, msgs[0])
			msgs = msgs[1:]
		}
	}
	if !whole && m.Content != "" {
		msg := message{Type: "message", Role: "assistant", Content: []part{{Type: "output_text", Text: m.Content}}}
		if len(msgs) > 0 {
			msg.Phase = msgs[len(msgs)-1].Phase
		}
		out = append(out, msg)
	}
	return out
}

// messageItem rebuilds a stored message item as input: its text parts
// joined, its phase.
func messageItem(raw chat.RawJSON) message {
	var it struct {
		Phase   string `json:"phase"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal([]byte(raw), &it)
	var text strings.Builder
	for _, c := range it.Content {
		if c.Type == "output_text" {
			text.WriteString(c.Text)
		}
	}
	return message{Type: "message", Role: "assistant", Phase: it.Phase, Content: []part{{Type: "output_text", Text: text.String()}}}
}

// reasoningItem is a stored reasoning item as input: as it came, its id
// included, less its status (output only). Nothing is stored at the
// endpoint (store: false), but the item carries its reasoning inline; the
// id goes with it as the recorded clients send it (DeepSeek accepted it,
// pydantic-ai's cassettes) and as Azure's project endpoints require
// (dotnet/extensions#7628). An item holding no reasoning inline (no
// encrypted_content, no content) is not sent: its id would refer to
// nothing stored ("Item with id 'rs_…' not found. Items are not persisted
// when store is set to false", openai/openai-agents-js#546).
func reasoningItem(raw chat.RawJSON) map[string]json.RawMessage {
	var item map[string]json.RawMessage
	if raw == "" || json.Unmarshal([]byte(raw), &item) != nil {
		return nil
	}
	var enc string
	var content []json.RawMessage
	_ = json.Unmarshal(item["encrypted_content"], &enc)
	_ = json.Unmarshal(item["content"], &content)
	if enc == "" && len(content) == 0 {
		return nil
	}
	delete(item, "status")
	return item
}

func tools(in []chat.ToolSpec) []tool {
	var out []tool
	for _, t := range in {
		out = append(out, tool{Type: "function", Name: t.Name, Description: t.Description, Parameters: llm.ToolSchema(t)})
	}
	return out
}
