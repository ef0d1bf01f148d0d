package anthropic

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// The request body of POST /v1/messages. The messages are not in the
// struct: their blocks are encoded message by message (cached from call to
// call) and follow the other fields; see encode.
type request struct {
	Model        string        `json:"model"`
	MaxTokens    int           `json:"max_tokens"`
	System       []textBlock   `json:"system,omitempty"`
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

// turn is one message of the API: a role and its content blocks.
type turn struct {
	role   string
	blocks []wireBlock
}

// wireBlock is one content block (a *Block type below, or a redacted thinking
// block as it came) and its encoding.
type wireBlock struct {
	v   any
	enc []byte
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

// toolResultBlock's Content is the result's text, or, with images, its
// blocks (text, then the images).
type toolResultBlock struct {
	Type      string        `json:"type"`
	ToolUseID string        `json:"tool_use_id"`
	Content   any           `json:"content,omitempty"`
	IsError   bool          `json:"is_error,omitempty"`
	Cache     *cacheControl `json:"cache_control,omitempty"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
	Cache       *cacheControl   `json:"cache_control,omitempty"`
}

// emptyObject stands in for tool input that is not a JSON object.
var emptyObject = json.RawMessage(`{}`)

// encode builds the JSON body for req: the request's fields, then
// "messages", each made of its history messages' blocks, encoded once per
// message (p.history).
func (p *Provider) encode(req llm.Request) (*llm.Body, error) {
	body := request{
		Model:     req.Model,
		MaxTokens: req.MaxTokens,
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
	conv, err := p.history.Make("", req.Messages, encodeMessage)
	if err != nil {
		return nil, err
	}
	turns, err := markLast(messages(conv))
	if err != nil {
		return nil, err
	}
	b, err := llm.NewBody(body)
	if err != nil {
		return nil, err
	}
	b.Array("messages", len(conv)+len(turns))
	for _, t := range turns {
		pieces := make([][]byte, 0, 2*len(t.blocks)+1)
		pieces = append(pieces, turnHead(t.role))
		for i, blk := range t.blocks {
			if i > 0 {
				pieces = append(pieces, comma)
			}
			pieces = append(pieces, blk.enc)
		}
		b.Item(append(pieces, closeTurn)...)
	}
	b.EndArray()
	b.End()
	return b, nil
}

// The punctuation of a turn, shared by every body (pieces are only read).
var (
	turnHeads = map[string][]byte{
		"user":      []byte(`{"role":"user","content":[`),
		"assistant": []byte(`{"role":"assistant","content":[`),
	}
	comma, closeTurn = []byte(","), []byte("]}")
)

func turnHead(role string) []byte {
	if h, ok := turnHeads[role]; ok {
		return h
	}
	return []byte(`{"role":"` + role + `","content":[`) // convert makes no other role today
}

// markCache sets the prompt-cache breakpoints of the tool list and the
// system prompt; markLast sets the third, on the latest message. Tools and
// system never change within a session, and the history only grows, so
// each request reuses the cached prefix the previous one wrote (3 of the
// API's 4 breakpoints).
func markCache(b *request) {
	if n := len(b.Tools); n > 0 {
		b.Tools[n-1].Cache = ephemeral
	}
	if n := len(b.System); n > 0 {
		b.System[n-1].Cache = ephemeral
	}
}

// markLast marks the last block of the last turn, a text or tool result,
// as a cache breakpoint. The block is copied, not changed: its turn's
// blocks may be the cache's.
func markLast(turns []turn) ([]turn, error) {
	n := len(turns)
	if n == 0 {
		return turns, nil
	}
	blocks := turns[n-1].blocks
	last := blocks[len(blocks)-1]
	switch v := last.v.(type) {
	case textBlock:
		v.Cache = ephemeral
		last.v = v
	case toolResultBlock:
		v.Cache = ephemeral
		last.v = v
	default:
		return turns, nil
	}
	enc, err := llm.MarshalBody(last.v)
	if err != nil {
		return nil, err
	}
	last.enc = enc
	blocks = append(slices.Clip(blocks[:len(blocks)-1]), last)
	turns[n-1].blocks = blocks
	return turns, nil
}

// encodeMessage is one history message's role and blocks, encoded.
func encodeMessage(e *llm.Encoder, m *chat.Message) (turn, error) {
	role, vs := convert(m)
	t := turn{role: role}
	for _, v := range vs {
		enc, err := e.Encode(v)
		if err != nil {
			return turn{}, err
		}
		t.blocks = append(t.blocks, wireBlock{v: v, enc: enc})
	}
	return t, nil
}

// messages merges the history's turns: tool results become tool_result
// blocks in a user message; adjacent messages of one role are merged, as
// the API requires alternation; empty messages are left out. The turns in
// are the cache's and are not changed.
func messages(in []turn) []turn {
	var out []turn
	for _, t := range in {
		if len(t.blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].role == t.role {
			out[n-1].blocks = append(out[n-1].blocks, t.blocks...)
			continue
		}
		// Clipped: a merge appends to a copy, never into the cache.
		out = append(out, turn{role: t.role, blocks: slices.Clip(t.blocks)})
	}
	for i := range out {
		if out[i].role == "user" {
			out[i].blocks = resultsFirst(out[i].blocks)
		}
	}
	return out
}

func convert(m *chat.Message) (role string, blocks []any) {
	switch m.Role {
	case chat.RoleTool:
		var content any = m.Content
		if len(m.Images) > 0 {
			content = append([]any{textBlock{Type: "text", Text: m.Content}}, imageBlocks(m.Images)...)
		}
		return "user", []any{toolResultBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: content, IsError: m.IsError}}
	case chat.RoleAssistant:
		return "assistant", assistant(m)
	}
	// Images first, then the text about them: what Anthropic advises.
	blocks = imageBlocks(m.Images)
	if m.Content != "" {
		blocks = append(blocks, textBlock{Type: "text", Text: m.Content})
	}
	return "user", blocks
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

// resultsFirst puts tool_result blocks at the front, keeping order: the
// API wants them before any other content of the user turn. It returns a
// new slice when anything moves.
func resultsFirst(blocks []wireBlock) []wireBlock {
	var results, rest []wireBlock
	for _, b := range blocks {
		if _, ok := b.v.(toolResultBlock); ok {
			results = append(results, b)
		} else {
			rest = append(rest, b)
		}
	}
	if len(results) > 0 && len(rest) > 0 {
		return append(results, rest...)
	}
	return blocks
}

func tools(in []chat.ToolSpec) []tool {
	if len(in) == 0 {
		return nil
	}
	out := make([]tool, len(in))
	for i, t := range in {
		out[i] = tool{Name: t.Name, Description: t.Description, InputSchema: llm.ToolSchema(t)}
	}
	return out
}
