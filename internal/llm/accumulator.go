package llm

import (
	"strings"

	"github.com/coder-agent/coder/internal/chat"
)

// Accumulator builds the assistant message from deltas. A DeltaReset
// discards everything accumulated for the call (a retry that streamed
// something different). It takes every delta it is given: a retry's
// replay of what was already streamed is dropped before, once, by the
// retry layer (WithRetry). The zero value is ready to use.
type Accumulator struct {
	text      strings.Builder
	reasoning strings.Builder
	// Pointers: a strings.Builder must not be copied once written to, and
	// appending may move the elements (calls and blocks interleave).
	blocks []*blockBuf
	calls  []*toolCallBuf
	usage  chat.Usage
	stop   string
	done   bool
}

type blockBuf struct {
	kind      string
	text, sig strings.Builder
	raw       chat.RawJSON
}

type toolCallBuf struct {
	id, name string
	args     strings.Builder
	extra    chat.RawJSON
}

// maxBlocks bounds the reasoning block index a provider may use.
const maxBlocks = 4096

// Add consumes one delta.
func (a *Accumulator) Add(d chat.MessageDelta) {
	switch d.Kind {
	case chat.DeltaReset:
		*a = Accumulator{}
	case chat.DeltaText:
		a.text.WriteString(d.Text)
	case chat.DeltaReasoning:
		a.reasoning.WriteString(d.Text)
		if b := a.block(d); b != nil {
			b.text.WriteString(d.Text)
		}
	case chat.DeltaReasoningSig:
		if b := a.block(d); b != nil {
			b.sig.WriteString(d.Text)
		}
	case chat.DeltaReasoningRaw:
		if b := a.block(d); b != nil {
			b.raw = chat.RawJSON(d.Raw)
		}
	case chat.DeltaToolCallExtra:
		a.call(d.ToolIndex).extra = chat.RawJSON(d.Raw)
	case chat.DeltaToolCallStart:
		c := a.call(d.ToolIndex)
		if d.ToolCallID != "" {
			c.id = d.ToolCallID
		}
		if d.ToolName != "" {
			c.name = d.ToolName
		}
	case chat.DeltaToolCallArgs:
		a.call(d.ToolIndex).args.WriteString(d.Text)
	case chat.DeltaUsage:
		a.usage = d.Usage
	case chat.DeltaDone:
		a.done = true
		a.stop = d.StopReason
	}
}

// block returns the reasoning block d belongs to, taking d's kind when it
// names one; nil for an index no provider uses (dropped, not a panic).
func (a *Accumulator) block(d chat.MessageDelta) *blockBuf {
	if d.Block < 0 || d.Block >= maxBlocks {
		return nil
	}
	for len(a.blocks) <= d.Block {
		a.blocks = append(a.blocks, &blockBuf{})
	}
	b := a.blocks[d.Block]
	if d.BlockKind != "" {
		b.kind = d.BlockKind
	}
	return b
}

func (a *Accumulator) call(i int) *toolCallBuf {
	if i < 0 {
		return &toolCallBuf{} // a provider bug: dropped, not a panic
	}
	for len(a.calls) <= i {
		a.calls = append(a.calls, &toolCallBuf{})
	}
	return a.calls[i]
}

// Done reports whether the stream finished.
func (a *Accumulator) Done() bool { return a.done }

// Usage is the usage the provider reported for this call.
func (a *Accumulator) Usage() chat.Usage { return a.usage }

// StopReason is the provider's stop reason, if it gave one.
func (a *Accumulator) StopReason() string { return a.stop }

// Text is the answer text so far (a cheap snapshot for a UI).
func (a *Accumulator) Text() string { return a.text.String() }

// Message returns the assistant message accumulated so far. A tool call the
// model sent without a name is kept (it is answered with an error, never
// dropped silently); only slots that carry nothing at all are left out.
func (a *Accumulator) Message() chat.Message {
	m := chat.Message{
		Role:      chat.RoleAssistant,
		Content:   a.text.String(),
		Reasoning: a.reasoning.String(),
	}
	for _, b := range a.blocks {
		if b.kind != "" { // else a gap in the provider's numbering
			m.ReasoningBlocks = append(m.ReasoningBlocks, chat.ReasoningBlock{
				Kind: b.kind, Text: b.text.String(), Signature: b.sig.String(), Raw: b.raw,
			})
		}
	}
	for _, c := range a.calls {
		if c.name == "" && c.id == "" && c.args.Len() == 0 {
			continue
		}
		m.ToolCalls = append(m.ToolCalls, chat.ToolCall{ID: c.id, Name: c.name, Arguments: c.args.String(), Extra: c.extra})
	}
	return m
}
