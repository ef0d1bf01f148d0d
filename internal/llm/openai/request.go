package openai

import (
	"encoding/json"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// The request body of POST /chat/completions.
type chatRequest struct {
	Model           string         `json:"model"`
	Messages        []message      `json:"messages"`
	Tools           []tool         `json:"tools,omitempty"`
	Stream          bool           `json:"stream"`
	StreamOptions   *streamOptions `json:"stream_options,omitempty"`
	MaxTokens       int            `json:"max_tokens,omitempty"`
	ReasoningEffort string         `json:"reasoning_effort,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// message is one input message. Content is a pointer so an assistant turn
// that only calls tools sends "content": null. Reasoning is never sent back:
// DeepSeek rejects reasoning_content in input.
type message struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function functionCall `json:"function"`
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

// emptySchema is sent for a tool that declares no parameters.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// encode builds the JSON body for req.
func (p *Provider) encode(req llm.Request) ([]byte, error) {
	body := chatRequest{
		Model:           req.Model,
		Messages:        messages(req.System, req.Messages),
		Tools:           tools(req.Tools),
		Stream:          true,
		StreamOptions:   &streamOptions{IncludeUsage: true},
		MaxTokens:       req.MaxTokens,
		ReasoningEffort: p.cfg.ReasoningEffort,
	}
	if body.Model == "" {
		body.Model = p.cfg.Model
	}
	if body.MaxTokens <= 0 {
		body.MaxTokens = p.cfg.MaxTokens
	}
	return marshal(body)
}

func messages(system string, in []chat.Message) []message {
	out := make([]message, 0, len(in)+1)
	if system != "" {
		out = append(out, message{Role: "system", Content: &system})
	}
	for i := range in {
		m := &in[i]
		switch m.Role {
		case chat.RoleAssistant:
			out = append(out, assistant(m))
		case chat.RoleTool:
			out = append(out, message{Role: "tool", Content: &m.Content, ToolCallID: m.ToolCallID})
		default:
			out = append(out, message{Role: string(m.Role), Content: &m.Content})
		}
	}
	return out
}

func assistant(m *chat.Message) message {
	out := message{Role: "assistant"}
	if m.Content != "" || len(m.ToolCalls) == 0 {
		out.Content = &m.Content
	}
	for _, c := range m.ToolCalls {
		args := c.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}" // some servers parse the history's arguments
		}
		out.ToolCalls = append(out.ToolCalls, toolCall{
			ID: c.ID, Type: "function", Function: functionCall{Name: c.Name, Arguments: args},
		})
	}
	return out
}

func tools(in []chat.ToolSpec) []tool {
	if len(in) == 0 {
		return nil
	}
	out := make([]tool, len(in))
	for i, t := range in {
		params := t.Parameters
		if len(params) == 0 || !json.Valid(params) {
			params = emptySchema
		}
		out[i] = tool{Type: "function", Function: functionDef{Name: t.Name, Description: t.Description, Parameters: params}}
	}
	return out
}
