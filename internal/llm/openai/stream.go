package openai

import (
	"encoding/json"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// chunk is the part of a chat.completion.chunk we read. Unknown fields are
// skipped by the decoder; the struct is reused between chunks.
type chunk struct {
	Choices []choice        `json:"choices"`
	Usage   *usage          `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type choice struct {
	Delta        delta  `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

type delta struct {
	Content content `json:"content"`
	Refusal string  `json:"refusal"`
	// ReasoningContent is DeepSeek's, Qwen's, Kimi's and older vLLM's;
	// Reasoning is OpenRouter's, Ollama's and newer vLLM's. Servers in
	// transition send both with the same text, so one is used.
	ReasoningContent string `json:"reasoning_content"`
	Reasoning        string `json:"reasoning"`
	// ReasoningDetails is OpenRouter's structured reasoning (text,
	// summaries, encrypted blobs), streamed in fragments.
	ReasoningDetails []map[string]json.RawMessage `json:"reasoning_details"`
	// ExtraContent is Gemini's (OpenAI-compatible endpoint) thought
	// signature on a text answer.
	ExtraContent json.RawMessage `json:"extra_content"`
	ToolCalls    []toolCallDelta `json:"tool_calls"`
}

type toolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
	// ExtraContent carries Gemini's thought signature for the call.
	ExtraContent json.RawMessage `json:"extra_content"`
}

type usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"` // DeepSeek
}

// call is the state of one streamed tool call. Its position in
// decoder.calls is the ToolIndex emitted for it.
type call struct {
	id, name       string
	started, ended bool
}

// decoder turns chunks into deltas for one Stream call.
//
// Tool calls are keyed by the wire "index"; servers that omit it are keyed
// by "id" (a new id is a new call; a fragment with neither continues the
// latest call). An index that reappears with a different id is a new call
// too (servers that number every call 0). DeltaToolCallStart is held back
// until the call's first arguments fragment (or its end), so the name —
// which may come in pieces — is usually whole; a name fragment arriving
// after that emits another Start carrying the full name so far. A fragment
// equal to the whole name so far is a server repeating it and is ignored.
type decoder struct {
	out      llm.Emit
	label    string // the provider's name in errors
	secret   string
	c        chunk
	blocks   reasoningBlocks
	calls    []call
	byIndex  map[int]int // wire index -> position in calls
	last     int         // the latest call's position, -1 before any
	usage    chat.Usage
	hasUsage bool
	stop     string
	finished bool // a finish_reason arrived
}

func newDecoder(emit llm.Emit, label, secret string) *decoder {
	return &decoder{
		out:    emit,
		label:  label,
		secret: secret,
		last:   -1,
	}
}

// chunk decodes and applies one data payload.
func (d *decoder) chunk(data []byte) error {
	ch := d.c.Choices[:cap(d.c.Choices)]
	clear(ch)
	d.c = chunk{Choices: ch[:0]}
	if err := llm.DecodeEvent(d.label, data, &d.c); err != nil {
		return err
	}
	if len(d.c.Error) > 0 && string(d.c.Error) != "null" {
		return llm.StreamError(d.label, data, d.secret)
	}
	if d.c.Usage != nil {
		d.setUsage(d.c.Usage)
	}
	if len(d.c.Choices) == 0 {
		return nil
	}
	c := &d.c.Choices[0]
	d.reasoning(&c.Delta)
	for _, p := range c.Delta.Content.parts {
		if p.thinking {
			d.reasoningText(chat.ReasoningThinkingPart, p.text)
		} else {
			d.text(chat.DeltaText, p.text)
		}
	}
	d.text(chat.DeltaText, c.Delta.Refusal)
	for i := range c.Delta.ToolCalls {
		d.tool(&c.Delta.ToolCalls[i])
	}
	if c.FinishReason != "" {
		d.stop, d.finished = c.FinishReason, true
		d.endCalls()
	}
	return nil
}

func (d *decoder) text(kind chat.DeltaKind, s string) {
	if s != "" {
		d.out(chat.MessageDelta{Kind: kind, Text: s})
	}
}

func (d *decoder) tool(t *toolCallDelta) {
	i := d.callIndex(t)
	c := &d.calls[i]
	if c.id == "" && t.ID != "" {
		c.id = t.ID
	}
	if n := t.Function.Name; n != "" && n != c.name {
		c.name += n
		if c.started {
			d.out(chat.MessageDelta{Kind: chat.DeltaToolCallStart, ToolIndex: i, ToolCallID: c.id, ToolName: c.name})
		}
	}
	if t.Function.Arguments != "" {
		d.start(i)
		d.out(chat.MessageDelta{Kind: chat.DeltaToolCallArgs, ToolIndex: i, Text: t.Function.Arguments})
	}
	if raw := rawObject(t.ExtraContent); raw != "" {
		d.out(chat.MessageDelta{Kind: chat.DeltaToolCallExtra, ToolIndex: i, Raw: raw})
	}
}

// callIndex finds or creates the call a fragment belongs to.
func (d *decoder) callIndex(t *toolCallDelta) int {
	switch {
	case t.Index != nil:
		if i, ok := d.byIndex[*t.Index]; ok && (t.ID == "" || d.calls[i].id == "" || d.calls[i].id == t.ID) {
			d.last = i
			return i
		}
		if d.byIndex == nil {
			d.byIndex = make(map[int]int)
		}
		d.byIndex[*t.Index] = d.newCall()
	case t.ID != "":
		for i := range d.calls {
			if d.calls[i].id == t.ID {
				d.last = i
				return i
			}
		}
		d.newCall()
	case d.last < 0:
		d.newCall()
	}
	return d.last
}

func (d *decoder) newCall() int {
	d.calls = append(d.calls, call{})
	d.last = len(d.calls) - 1
	return d.last
}

func (d *decoder) start(i int) {
	c := &d.calls[i]
	if !c.started {
		c.started = true
		d.out(chat.MessageDelta{Kind: chat.DeltaToolCallStart, ToolIndex: i, ToolCallID: c.id, ToolName: c.name})
	}
}

// endCalls ends every call not yet ended.
func (d *decoder) endCalls() {
	for i := range d.calls {
		if !d.calls[i].ended {
			d.start(i)
			d.calls[i].ended = true
			d.out(chat.MessageDelta{Kind: chat.DeltaToolCallEnd, ToolIndex: i})
		}
	}
}

// setUsage records the usage. prompt_tokens includes cache hits; like
// Anthropic's input_tokens, chat.Usage.InputTokens counts only the input
// not read from cache, and CacheReadTokens the rest.
func (d *decoder) setUsage(u *usage) {
	cached := u.PromptCacheHitTokens
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0 {
		cached = u.PromptTokensDetails.CachedTokens
	}
	cached = min(cached, u.PromptTokens)
	d.usage = chat.Usage{InputTokens: u.PromptTokens - cached, OutputTokens: u.CompletionTokens, CacheReadTokens: cached}
	d.hasUsage = true
}

// done ends the response: open calls, the reasoning details assembled
// from their fragments, then usage, then DeltaDone.
func (d *decoder) done() error {
	d.endCalls()
	d.flushDetails()
	if d.hasUsage {
		d.out(chat.MessageDelta{Kind: chat.DeltaUsage, Usage: d.usage})
	}
	d.out(chat.MessageDelta{Kind: chat.DeltaDone, StopReason: d.stop})
	return nil
}

// typeError reports whether err only says a field had an unexpected type:
// such a field is skipped, the rest of the payload is still used.
