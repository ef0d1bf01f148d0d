package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/sse"
)

// event is the union of the stream events' fields we read; the struct is
// reused between events. Unknown events and block types are ignored, as the
// API's versioning policy asks.
type event struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		Usage usage `json:"usage"`
		// Content is normally empty; a proxy may put whole blocks here.
		Content []contentBlock `json:"content"`
	} `json:"message"`
	ContentBlock contentBlock `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage usage `json:"usage"`
}

// contentBlock is a content block as content_block_start (or a
// prepopulated message_start) gives it. Raw keeps the block verbatim, for
// the blocks sent back as they came (redacted_thinking).
type contentBlock struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Input     json.RawMessage `json:"input"`
	Raw       string          `json:"-"`
}

func (b *contentBlock) UnmarshalJSON(data []byte) error {
	type plain contentBlock
	var p plain
	if err := llm.SkipTypeErrors(json.Unmarshal(data, &p)); err != nil {
		return err
	}
	*b = contentBlock(p)
	if b.Type == "redacted_thinking" {
		var buf bytes.Buffer
		if json.Compact(&buf, data) == nil {
			b.Raw = buf.String()
		}
	}
	return nil
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// maxBlocks bounds the content block index a server may use.
const maxBlocks = 4096

// block is what is known about one content block, by its wire index.
type block struct {
	kind      string // "text", "thinking", "tool_use", …
	tool      int    // for tool_use: the ToolIndex (position among tool_use blocks)
	reasoning int    // for thinking and redacted_thinking: the reasoning block
	open      bool   // tool_use started and not yet ended
	// input is a tool_use's input given whole at its start; it stands
	// unless input_json_delta fragments follow (streamedInput).
	input         string
	streamedInput bool
}

// decoder turns events into deltas for one Stream call.
type decoder struct {
	out       llm.Emit
	label     string
	secret    string
	ev        event
	blocks    []block
	tools     int
	reasoning int // reasoning blocks so far: each thinking block is its own
	usage     usage
	stop      string
}

func newDecoder(emit llm.Emit, label, secret string) *decoder {
	return &decoder{out: emit, label: label, secret: secret}
}

// event applies one SSE event and reports whether the message is complete.
func (d *decoder) event(ev sse.Event) (done bool, err error) {
	d.ev = event{}
	if err := llm.DecodeEvent(d.label, ev.Data, &d.ev); err != nil {
		return false, err
	}
	e := &d.ev
	if e.Type == "" {
		e.Type = ev.Name
	}
	switch e.Type {
	case "message_start":
		d.usage = e.Message.Usage
		d.prepopulated(e.Message.Content)
	case "content_block_start":
		return false, d.blockStart(e)
	case "content_block_delta":
		d.blockDelta(e)
	case "content_block_stop":
		if b := d.block(e.Index); b != nil {
			d.endTool(b)
		}
	case "message_delta":
		d.messageDelta(e)
	case "message_stop":
		return true, d.done()
	case "error":
		return false, llm.StreamError(d.label, ev.Data, d.secret)
	}
	return false, nil
}

// block returns the block at wire index i, or nil if none was started.
func (d *decoder) block(i int) *block {
	if i < 0 || i >= len(d.blocks) || d.blocks[i].kind == "" {
		return nil
	}
	return &d.blocks[i]
}

func (d *decoder) blockStart(e *event) error {
	if e.Index < 0 || e.Index >= maxBlocks {
		return &llm.Error{Provider: d.label, Message: fmt.Sprintf("malformed stream event: content block index %d", e.Index), Retryable: true}
	}
	for len(d.blocks) <= e.Index {
		d.blocks = append(d.blocks, block{})
	}
	d.startBlock(&d.blocks[e.Index], &e.ContentBlock)
	return nil
}

// startBlock opens a block: its initial text, thinking or tool call.
func (d *decoder) startBlock(b *block, cb *contentBlock) {
	*b = block{kind: cb.Type}
	switch cb.Type {
	case "text":
		d.text(chat.DeltaText, cb.Text)
	case "thinking":
		b.reasoning = d.newReasoning()
		d.thinking(b, chat.DeltaReasoning, cb.Thinking)
		d.thinking(b, chat.DeltaReasoningSig, cb.Signature)
	case "redacted_thinking":
		b.reasoning = d.newReasoning()
		d.out(chat.MessageDelta{Kind: chat.DeltaReasoningRaw, Block: b.reasoning, BlockKind: chat.ReasoningRedacted, Raw: cb.Raw})
	case "tool_use":
		b.tool, b.open = d.tools, true
		d.tools++
		if in := bytes.TrimSpace(cb.Input); len(in) > 0 && string(in) != "{}" && string(in) != "null" {
			b.input = string(in)
		}
		d.out(chat.MessageDelta{Kind: chat.DeltaToolCallStart, ToolIndex: b.tool, ToolCallID: cb.ID, ToolName: cb.Name})
	}
}

// prepopulated handles blocks a message_start already holds whole (seen
// from proxies): each is started and stopped at once.
func (d *decoder) prepopulated(blocks []contentBlock) {
	for i := range blocks {
		var b block
		d.startBlock(&b, &blocks[i])
		d.endTool(&b)
	}
}

func (d *decoder) newReasoning() int {
	d.reasoning++
	return d.reasoning - 1
}

// thinking emits a piece of a thinking block: its text or signature.
func (d *decoder) thinking(b *block, kind chat.DeltaKind, s string) {
	if s != "" {
		d.out(chat.MessageDelta{Kind: kind, Block: b.reasoning, BlockKind: chat.ReasoningThinking, Text: s})
	}
}

func (d *decoder) blockDelta(e *event) {
	b := d.block(e.Index)
	switch e.Delta.Type {
	case "text_delta":
		d.text(chat.DeltaText, e.Delta.Text)
	case "thinking_delta":
		if b != nil && b.kind == "thinking" {
			d.thinking(b, chat.DeltaReasoning, e.Delta.Thinking)
		}
	case "signature_delta":
		if b != nil && b.kind == "thinking" {
			d.thinking(b, chat.DeltaReasoningSig, e.Delta.Signature)
		}
	case "input_json_delta":
		if b != nil && b.kind == "tool_use" && e.Delta.PartialJSON != "" {
			b.streamedInput = true
			d.out(chat.MessageDelta{Kind: chat.DeltaToolCallArgs, ToolIndex: b.tool, Text: e.Delta.PartialJSON})
		}
	}
}

func (d *decoder) text(kind chat.DeltaKind, s string) {
	if s != "" {
		d.out(chat.MessageDelta{Kind: kind, Text: s})
	}
}

// endTool ends an open tool call; an input given whole at the start is
// its arguments when no fragments came.
func (d *decoder) endTool(b *block) {
	if b.kind == "tool_use" && b.open {
		b.open = false
		if b.input != "" && !b.streamedInput {
			d.out(chat.MessageDelta{Kind: chat.DeltaToolCallArgs, ToolIndex: b.tool, Text: b.input})
		}
		d.out(chat.MessageDelta{Kind: chat.DeltaToolCallEnd, ToolIndex: b.tool})
	}
}

// messageDelta records the stop reason and the final usage; its counts are
// cumulative, so any it carries replace message_start's.
func (d *decoder) messageDelta(e *event) {
	if e.Delta.StopReason != "" {
		d.stop = e.Delta.StopReason
	}
	u := e.Usage
	for _, f := range []struct{ dst, src *int }{
		{&d.usage.InputTokens, &u.InputTokens},
		{&d.usage.OutputTokens, &u.OutputTokens},
		{&d.usage.CacheReadInputTokens, &u.CacheReadInputTokens},
		{&d.usage.CacheCreationInputTokens, &u.CacheCreationInputTokens},
	} {
		if *f.src != 0 {
			*f.dst = *f.src
		}
	}
}

// done ends the message: open tool calls, usage, then DeltaDone.
// The usage fields map one to one: InputTokens is the input neither read
// from nor written to the cache.
func (d *decoder) done() error {
	for i := range d.blocks {
		d.endTool(&d.blocks[i])
	}
	u := d.usage
	usage := chat.Usage{
		InputTokens:      u.InputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
	}
	if !usage.IsZero() {
		d.out(chat.MessageDelta{Kind: chat.DeltaUsage, Usage: usage})
	}
	d.out(chat.MessageDelta{Kind: chat.DeltaDone, StopReason: d.stop})
	return nil
}

// typeError reports whether err only says a field had an unexpected type:
// such a field is skipped, the rest of the payload is still used.
