// Package chat holds the provider-neutral conversation types: messages, tool
// calls, usage and the streaming MessageDelta every provider normalises into.
// It imports nothing internal, so every other layer can depend on it.
package chat

import (
	"encoding/json"
	"slices"
)

// Role is who wrote a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation history. System prompts are not
// messages: they are built per request (see llm.Request.System).
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`

	// Reasoning is the model's visible thinking, all blocks joined: what a
	// person reads and what compaction counts.
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningBlocks is the provider's reasoning state, block by block and
	// verbatim, as it must be sent back (see ReasoningBlock).
	ReasoningBlocks []ReasoningBlock `json:"reasoning_blocks,omitempty"`
	// ReasoningSignature is the one Anthropic signature sessions stored
	// before ReasoningBlocks existed; it is still read (see ReasoningState).
	ReasoningSignature string `json:"reasoning_signature,omitempty"`

	// ToolCalls are set on assistant messages.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`

	// ToolCallID and ToolName are set on tool messages.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	// IsError marks a tool result that reports a failure.
	IsError bool `json:"is_error,omitempty"`

	// Interrupted marks an assistant message whose stream was cut by a cancel.
	Interrupted bool `json:"interrupted,omitempty"`

	// Images go with a user message (attached by a person) or a tool
	// message (what read showed).
	Images []Image `json:"images,omitempty"`
	// Turn is set on the user message that opened a turn: the turn's
	// number in its session, which names its undo snapshot (see /rewind).
	Turn int `json:"turn,omitempty"`
}

// ToolCall is one tool invocation requested by the model. Arguments is the raw
// JSON text the model produced; it may be malformed and is validated by the
// tool layer, never trusted.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	// Extra is what the provider attached to the call and wants back with
	// it, verbatim (Gemini's extra_content with its thought signature).
	Extra RawJSON `json:"extra_content,omitempty"`
}

// Equal reports whether m and o are the same message, field by field.
func (m *Message) Equal(o *Message) bool {
	return m.Role == o.Role && m.Content == o.Content && m.Reasoning == o.Reasoning &&
		m.ReasoningSignature == o.ReasoningSignature && m.ToolCallID == o.ToolCallID &&
		m.ToolName == o.ToolName && m.IsError == o.IsError && m.Interrupted == o.Interrupted && m.Turn == o.Turn &&
		slices.Equal(m.ToolCalls, o.ToolCalls) && slices.Equal(m.ReasoningBlocks, o.ReasoningBlocks) &&
		imagesEqual(m.Images, o.Images)
}

// Clone is a copy of m whose slices are its own: what is kept to compare
// with later (see Equal) must not change when m is changed in place.
func (m *Message) Clone() Message {
	c := *m
	c.ToolCalls, c.ReasoningBlocks = slices.Clone(m.ToolCalls), slices.Clone(m.ReasoningBlocks)
	c.Images = slices.Clone(m.Images) // the bytes are shared: nothing changes them
	return c
}

// ReasoningState is the message's reasoning blocks; for a message stored
// before blocks existed, its one signed thinking block (an unsigned one
// cannot be sent back, so none).
func (m *Message) ReasoningState() []ReasoningBlock {
	if len(m.ReasoningBlocks) > 0 || m.ReasoningSignature == "" {
		return m.ReasoningBlocks
	}
	return []ReasoningBlock{{Kind: ReasoningThinking, Text: m.Reasoning, Signature: m.ReasoningSignature}}
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Usage is token accounting for one or more model calls. InputTokens is the
// input neither read from nor written to the prompt cache (Anthropic's
// meaning; OpenAI's prompt_tokens minus cached tokens), so the full prompt
// size is PromptTokens().
type Usage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_input_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_creation_input_tokens,omitempty"`
}

// Add accumulates o into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheReadTokens += o.CacheReadTokens
	u.CacheWriteTokens += o.CacheWriteTokens
}

// PromptTokens is the whole prompt size, cached parts included.
func (u Usage) PromptTokens() int { return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens }

// IsZero reports whether no tokens were counted.
func (u Usage) IsZero() bool { return u == Usage{} }
