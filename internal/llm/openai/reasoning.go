package openai

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// This file decodes the reasoning a Chat Completions stream may carry, so
// it can be shown and, block by block, sent back in the field it came in:
// reasoning_content or reasoning (text), Mistral's thinking parts of
// content, OpenRouter's reasoning_details, Gemini's extra_content.

// content is delta.content: a string (most servers), or an array of parts
// (Mistral: text parts, and thinking parts holding text parts).
type content struct{ parts []part }

type part struct {
	text     string
	thinking bool
}

// UnmarshalJSON accepts both shapes; anything else is skipped, like any
// field of an unexpected type.
func (c *content) UnmarshalJSON(b []byte) error {
	c.parts = c.parts[:0]
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] == 'n' {
		return nil
	}
	if b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil && s != "" {
			c.parts = append(c.parts, part{text: s})
		}
		return nil
	}
	var ps []struct {
		Type     string          `json:"type"`
		Text     string          `json:"text"`
		Thinking json.RawMessage `json:"thinking"`
	}
	if json.Unmarshal(b, &ps) != nil {
		return nil
	}
	for _, p := range ps {
		switch p.Type {
		case "text":
			c.parts = append(c.parts, part{text: p.Text})
		case "thinking":
			c.parts = append(c.parts, part{text: textOf(p.Thinking), thinking: true})
		}
	}
	return nil
}

// textOf reads a thinking part's body: a string, or text parts.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var ps []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &ps)
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Text)
	}
	return b.String()
}

// reasoningBlocks numbers the message's reasoning blocks in order of first
// appearance: one per text field or part kind, one per (type, index) of
// reasoning_details, one for extra_content.
type reasoningBlocks struct {
	next    int
	byKind  map[string]int
	details []detail
}

// detail is one reasoning_details entry assembled from its fragments:
// parts holds the string fields streamed in pieces, fields the others.
type detail struct {
	typ    string
	index  string // the wire "index", as raw JSON
	block  int
	fields map[string]json.RawMessage
	parts  map[string]*strings.Builder
}

func (r *reasoningBlocks) kind(k string) int {
	if i, ok := r.byKind[k]; ok {
		return i
	}
	if r.byKind == nil {
		r.byKind = map[string]int{}
	}
	r.byKind[k] = r.next
	r.next++
	return r.next - 1
}

// reasoning applies a delta's reasoning fields. The text fields are shown;
// reasoning_details are shown only when no text field carried the same
// reasoning (OpenRouter sends both).
func (d *decoder) reasoning(dl *delta) {
	shown := false
	switch {
	case dl.ReasoningContent != "":
		d.reasoningText(chat.ReasoningContentField, dl.ReasoningContent)
		shown = true
	case dl.Reasoning != "":
		d.reasoningText(chat.ReasoningField, dl.Reasoning)
		shown = true
	}
	for _, frag := range dl.ReasoningDetails {
		d.detail(frag, !shown)
	}
	if raw := rawObject(dl.ExtraContent); raw != "" {
		b := d.blocks.kind(chat.ReasoningExtraContent)
		d.out(chat.MessageDelta{Kind: chat.DeltaReasoningRaw, Block: b, BlockKind: chat.ReasoningExtraContent, Raw: raw})
	}
}

func (d *decoder) reasoningText(kind, s string) {
	if s != "" {
		d.out(chat.MessageDelta{Kind: chat.DeltaReasoning, Block: d.blocks.kind(kind), BlockKind: kind, Text: s})
	}
}

// detail merges one reasoning_details fragment into its entry: fragments
// of one entry share type and index; their text, summary, data and
// signature strings are pieces to join, any other field the latest value.
func (d *decoder) detail(frag map[string]json.RawMessage, show bool) {
	typ, _ := str(frag["type"])
	idx := string(frag["index"])
	var e *detail
	for i := range d.blocks.details {
		if x := &d.blocks.details[i]; x.typ == typ && x.index == idx {
			e = x
			break
		}
	}
	if e == nil {
		d.blocks.details = append(d.blocks.details, detail{typ: typ, index: idx, block: d.blocks.next,
			fields: map[string]json.RawMessage{}, parts: map[string]*strings.Builder{}})
		d.blocks.next++
		e = &d.blocks.details[len(d.blocks.details)-1]
	}
	var shown string
	for k, v := range frag {
		piece, isStr := str(v)
		switch {
		case joined[k] && isStr:
			b := e.parts[k]
			if b == nil {
				b = &strings.Builder{}
				e.parts[k] = b
			}
			b.WriteString(piece)
			if k == "text" || k == "summary" {
				shown += piece
			}
		case string(v) != "null" || e.fields[k] == nil:
			e.fields[k] = v
		}
	}
	if show && shown != "" {
		d.out(chat.MessageDelta{Kind: chat.DeltaReasoning, Block: e.block, BlockKind: chat.ReasoningDetails, Text: shown})
	}
}

// joined are the reasoning_details fields streamed in pieces.
var joined = map[string]bool{"text": true, "summary": true, "data": true, "signature": true}

// flushDetails emits each assembled reasoning_details entry verbatim.
func (d *decoder) flushDetails() {
	for _, e := range d.blocks.details {
		for k, p := range e.parts {
			e.fields[k] = quote(p.String())
		}
		b, err := llm.MarshalBody(e.fields)
		if err != nil {
			continue
		}
		d.out(chat.MessageDelta{Kind: chat.DeltaReasoningRaw, Block: e.block, BlockKind: chat.ReasoningDetails, Raw: string(b)})
	}
	d.blocks.details = nil
}

// rawObject is raw when it is a JSON object, compacted; else "".
func rawObject(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return ""
	}
	return b.String()
}

func str(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func quote(s string) json.RawMessage {
	b, _ := llm.MarshalBody(s)
	return b
}
