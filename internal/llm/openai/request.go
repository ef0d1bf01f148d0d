package openai

import (
	"encoding/json"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/catalog"
)

// The request body of POST /chat/completions. The messages are not in
// it: they are encoded one by one (cached from call to call) and follow
// the other fields; see encode.
type chatRequest struct {
	Model               string         `json:"model"`
	Tools               []tool         `json:"tools,omitempty"`
	Stream              bool           `json:"stream"`
	StreamOptions       *streamOptions `json:"stream_options,omitempty"`
	MaxTokens           int            `json:"max_tokens,omitempty"`
	MaxCompletionTokens int            `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string         `json:"reasoning_effort,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// message is one input message. Content is a *string (nil sends "content":
// null, for an assistant turn that only calls tools) or, to send thinking
// parts back, []contentPart. The reasoning fields carry an assistant
// turn's reasoning back in the field it came in.
type message struct {
	Role             string            `json:"role"`
	Content          any               `json:"content"`
	ReasoningContent string            `json:"reasoning_content,omitempty"`
	Reasoning        string            `json:"reasoning,omitempty"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details,omitempty"`
	ExtraContent     json.RawMessage   `json:"extra_content,omitempty"`
	ToolCalls        []toolCall        `json:"tool_calls,omitempty"`
	ToolCallID       string            `json:"tool_call_id,omitempty"`
}

// contentPart is a part of an array content: text, or Mistral's thinking
// ({"type":"thinking","thinking":[{"type":"text","text":...}]}).
type contentPart struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	Thinking []contentPart `json:"thinking,omitempty"`
}

type toolCall struct {
	ID           string          `json:"id"`
	Type         string          `json:"type"`
	Function     functionCall    `json:"function"`
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

type functionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type tool struct {
	Type     string      `json:"type"`
	Function functionDef `json:"function"`
}

type functionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// encode builds the JSON body for req, shaped for the model (shape.go):
// the request's fields, then "messages", the system prompt and each
// history message's encoding, made once per message (p.history).
func (p *Provider) encode(req llm.Request) (*llm.Body, error) {
	body := chatRequest{Model: req.Model, Tools: tools(req.Tools), Stream: true}
	if body.Model == "" {
		body.Model = p.cfg.Model
	}
	sh := p.shapeFor(body.Model)
	sh.apply(&body, req.MaxTokens, p.cfg)
	msgs, err := p.history.Make(sh.historyKey(), req.Messages, func(e *llm.Encoder, m *chat.Message) ([]byte, error) {
		return e.Encode(convert(m, sh.rules))
	})
	if err != nil {
		return nil, err
	}
	b, err := llm.NewBody(body)
	if err != nil {
		return nil, err
	}
	b.Array("messages", len(msgs)+1)
	if req.System != "" {
		sys, err := llm.MarshalBody(message{Role: "system", Content: &req.System})
		if err != nil {
			return nil, err
		}
		b.Item(sys)
	}
	for _, m := range msgs {
		b.Item(m)
	}
	b.EndArray()
	b.End()
	return b, nil
}

// convert is the wire message for one history message.
func convert(m *chat.Message, r catalog.Rules) message {
	switch m.Role {
	case chat.RoleAssistant:
		return assistant(m, r)
	case chat.RoleTool:
		return message{Role: "tool", Content: &m.Content, ToolCallID: m.ToolCallID}
	}
	return message{Role: string(m.Role), Content: &m.Content}
}

func assistant(m *chat.Message, r catalog.Rules) message {
	out := message{Role: "assistant"}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		out.Content = &m.Content
	}
	for _, c := range m.ToolCalls {
		args := c.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}" // some servers parse the history's arguments
		}
		tc := toolCall{ID: c.ID, Type: "function", Function: functionCall{Name: c.Name, Arguments: args}}
		if c.Extra != "" && r.Allows(chat.ReasoningExtraContent) {
			tc.ExtraContent = json.RawMessage(c.Extra)
		}
		out.ToolCalls = append(out.ToolCalls, tc)
	}
	reasoning(m, r, &out)
	return out
}

// reasoning puts the message's reasoning blocks back where they came
// from, those the endpoint takes (r.PassBack). reasoning_details, when
// present, carry the reasoning whole (OpenRouter sends its text in
// "reasoning" too): the text field is then not repeated.
func reasoning(m *chat.Message, r catalog.Rules, out *message) {
	var thinking []contentPart
	var content, text strings.Builder
	for _, b := range m.ReasoningBlocks {
		if !r.Allows(b.Kind) {
			continue
		}
		switch b.Kind {
		case chat.ReasoningContentField:
			content.WriteString(b.Text)
		case chat.ReasoningField:
			text.WriteString(b.Text)
		case chat.ReasoningDetails:
			if b.Raw != "" {
				out.ReasoningDetails = append(out.ReasoningDetails, json.RawMessage(b.Raw))
			}
		case chat.ReasoningExtraContent:
			out.ExtraContent = json.RawMessage(b.Raw)
		case chat.ReasoningThinkingPart:
			thinking = append(thinking, contentPart{Type: "thinking", Thinking: []contentPart{{Type: "text", Text: b.Text}}})
		}
	}
	out.ReasoningContent = content.String()
	if len(out.ReasoningDetails) == 0 {
		out.Reasoning = text.String()
	}
	if len(m.ReasoningBlocks) == 0 && r.Required == chat.ReasoningContentField && r.Allows(r.Required) {
		out.ReasoningContent = m.Reasoning // stored before blocks existed
	}
	if len(thinking) > 0 {
		if m.Content != "" {
			thinking = append(thinking, contentPart{Type: "text", Text: m.Content})
		}
		out.Content = thinking
	}
}

func tools(in []chat.ToolSpec) []tool {
	if len(in) == 0 {
		return nil
	}
	out := make([]tool, len(in))
	for i, t := range in {
		out[i] = tool{Type: "function", Function: functionDef{Name: t.Name, Description: t.Description, Parameters: llm.ToolSchema(t)}}
	}
	return out
}
