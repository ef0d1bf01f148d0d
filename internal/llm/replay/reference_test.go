package replay

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
)

// This file reads a recording independently of the providers: generic
// maps instead of their structs, its own event splitting, the protocol's
// documented meaning of each field. It is what the providers are held to.

// expected is what a recording holds.
type expected struct {
	err       bool // the stream does not end in a complete response
	text      string
	reasoning string
	calls     []chat.ToolCall
	usage     chat.Usage
	stop      string
	// What came back-able, for the continuation checks.
	fields   map[string]string // Chat Completions: reasoning text by field ("reasoning_content", "reasoning", "thinking_part")
	details  []map[string]any  // Chat Completions: reasoning_details entries, assembled; Responses: reasoning and message items
	thinking []chat.ReasoningBlock
}

type sseEvent struct{ name, data string }

// splitSSE splits a body into events (blank-line separated; "data:" lines
// joined by newlines; comments and other fields ignored).
func splitSSE(body []byte) []sseEvent {
	body = bytes.ReplaceAll(body, []byte("\r\n"), []byte("\n"))
	var out []sseEvent
	for _, block := range strings.Split(string(body), "\n\n") {
		var ev sseEvent
		var data []string
		for _, line := range strings.Split(block, "\n") {
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				ev.name = value
			case "data":
				data = append(data, value)
			}
		}
		if data != nil {
			ev.data = strings.Join(data, "\n")
			out = append(out, ev)
		}
	}
	return out
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }
func arr(v any) []any          { a, _ := v.([]any); return a }
func sval(v any) string        { s, _ := v.(string); return s }
func ival(v any) int           { f, _ := v.(float64); return int(f) }

// refCall is a Chat Completions tool call being assembled.
type refCall struct {
	index    any
	id, name string
	args     strings.Builder
}

// readOpenAI reads a Chat Completions stream.
func readOpenAI(body []byte) expected {
	e := expected{fields: map[string]string{}}
	var calls []*refCall
	var last *refCall
	finished, done := false, false
	detailAt := map[string]int{}
	for _, ev := range splitSSE(body) {
		data := strings.TrimSpace(ev.data)
		if data == "[DONE]" {
			done = true
			break
		}
		if data == "" {
			continue
		}
		var chunk map[string]any
		if ev.name == "error" || json.Unmarshal([]byte(data), &chunk) != nil || chunk["error"] != nil {
			e.err = true
			return e
		}
		if u := obj(chunk["usage"]); u != nil {
			prompt := ival(u["prompt_tokens"])
			cached := ival(obj(u["prompt_tokens_details"])["cached_tokens"])
			if cached == 0 {
				cached = ival(u["prompt_cache_hit_tokens"])
			}
			cached = min(cached, prompt)
			e.usage = chat.Usage{InputTokens: prompt - cached, OutputTokens: ival(u["completion_tokens"]), CacheReadTokens: cached}
		}
		choices := arr(chunk["choices"])
		if len(choices) == 0 {
			continue
		}
		choice := obj(choices[0])
		delta := obj(choice["delta"])
		e.openAIReasoning(delta, detailAt)
		switch c := delta["content"].(type) {
		case string:
			e.text += c
		case []any:
			for _, p := range c {
				p := obj(p)
				switch sval(p["type"]) {
				case "text":
					e.text += sval(p["text"])
				case "thinking":
					var t string
					for _, q := range arr(p["thinking"]) {
						t += sval(obj(q)["text"])
					}
					if s, ok := p["thinking"].(string); ok {
						t = s
					}
					e.reasoning += t
					e.fields["thinking_part"] += t
				}
			}
		}
		e.text += sval(delta["refusal"])
		for _, tc := range arr(delta["tool_calls"]) {
			last, calls = openAICall(obj(tc), last, calls)
		}
		if f := sval(choice["finish_reason"]); f != "" {
			e.stop, finished = f, true
		}
	}
	if !done && !finished {
		e.err = true // cut before the end
	}
	for _, c := range calls {
		if c.name != "" {
			e.calls = append(e.calls, chat.ToolCall{ID: c.id, Name: c.name, Arguments: c.args.String()})
		}
	}
	return e
}

// openAIReasoning reads the reasoning fields of one delta: the text field
// (reasoning_content over reasoning, which servers in transition duplicate),
// reasoning_details fragments joined per (type, index), shown when no text
// field carried the reasoning.
func (e *expected) openAIReasoning(delta map[string]any, at map[string]int) {
	shown := false
	for _, f := range []string{"reasoning_content", "reasoning"} {
		if s := sval(delta[f]); s != "" {
			e.reasoning += s
			e.fields[f] += s
			shown = true
			break
		}
	}
	for _, d := range arr(delta["reasoning_details"]) {
		frag := obj(d)
		key := sval(frag["type"]) + "\x00" + string(mustJSON(frag["index"]))
		i, ok := at[key]
		if !ok {
			i = len(e.details)
			at[key] = i
			e.details = append(e.details, map[string]any{})
		}
		entry := e.details[i]
		for k, v := range frag {
			s, isStr := v.(string)
			switch {
			case isStr && (k == "text" || k == "summary" || k == "data" || k == "signature"):
				entry[k] = sval(entry[k]) + s
				if !shown && (k == "text" || k == "summary") {
					e.reasoning += s
				}
			case v != nil || entry[k] == nil:
				entry[k] = v
			}
		}
	}
}

// openAICall applies one tool_calls entry: calls are keyed by index (a
// new id at a used index is a new call), else by id, else continue the
// latest; a name fragment that repeats the whole name is not appended.
func openAICall(tc map[string]any, last *refCall, calls []*refCall) (*refCall, []*refCall) {
	id := sval(tc["id"])
	var c *refCall
	if idx, ok := tc["index"]; ok && idx != nil {
		for _, x := range calls {
			if x.index == idx && (id == "" || x.id == "" || x.id == id) {
				c = x
			}
		}
		if c == nil {
			c = &refCall{index: idx}
			calls = append(calls, c)
		}
	} else if id != "" {
		for _, x := range calls {
			if x.id == id {
				c = x
			}
		}
		if c == nil {
			c = &refCall{}
			calls = append(calls, c)
		}
	} else if c = last; c == nil {
		c = &refCall{}
		calls = append(calls, c)
	}
	if c.id == "" {
		c.id = id
	}
	fn := obj(tc["function"])
	if n := sval(fn["name"]); n != "" && n != c.name {
		c.name += n
	}
	c.args.WriteString(sval(fn["arguments"]))
	return c, calls
}

// readAnthropic reads a Messages stream.
func readAnthropic(body []byte) expected {
	var e expected
	type blk struct {
		kind     string
		call     *refCall
		input    string
		streamed bool
		thinking int
	}
	blocks := map[int]*blk{}
	var calls []*refCall
	var u struct{ in, out, read, write int }
	setUsage := func(m map[string]any, all bool) {
		for _, f := range []struct {
			key string
			dst *int
		}{{"input_tokens", &u.in}, {"output_tokens", &u.out}, {"cache_read_input_tokens", &u.read}, {"cache_creation_input_tokens", &u.write}} {
			if v := ival(m[f.key]); all || v != 0 {
				*f.dst = v
			}
		}
	}
	start := func(cb map[string]any) *blk {
		b := &blk{kind: sval(cb["type"])}
		switch b.kind {
		case "text":
			e.text += sval(cb["text"])
		case "thinking":
			b.thinking = len(e.thinking)
			e.thinking = append(e.thinking, chat.ReasoningBlock{Kind: chat.ReasoningThinking, Text: sval(cb["thinking"]), Signature: sval(cb["signature"])})
			e.reasoning += sval(cb["thinking"])
		case "redacted_thinking":
			e.thinking = append(e.thinking, chat.ReasoningBlock{Kind: chat.ReasoningRedacted, Raw: chat.RawJSON(mustJSON(cb))})
		case "tool_use":
			b.call = &refCall{id: sval(cb["id"]), name: sval(cb["name"])}
			if in := string(mustJSON(cb["input"])); in != "{}" && in != "null" {
				b.input = in
			}
			calls = append(calls, b.call)
		}
		return b
	}
	stop := func(b *blk) {
		if b != nil && b.call != nil && !b.streamed {
			b.call.args.WriteString(b.input)
			b.input = ""
		}
	}
	done := false
	for _, ev := range splitSSE(body) {
		var m map[string]any
		if json.Unmarshal([]byte(ev.data), &m) != nil {
			e.err = true
			return e
		}
		typ := sval(m["type"])
		if typ == "" {
			typ = ev.name
		}
		switch typ {
		case "message_start":
			msg := obj(m["message"])
			setUsage(obj(msg["usage"]), true)
			for _, cb := range arr(msg["content"]) {
				stop(start(obj(cb)))
			}
		case "content_block_start":
			blocks[ival(m["index"])] = start(obj(m["content_block"]))
		case "content_block_delta":
			b, d := blocks[ival(m["index"])], obj(m["delta"])
			switch sval(d["type"]) {
			case "text_delta":
				e.text += sval(d["text"])
			case "thinking_delta":
				if b != nil && b.kind == "thinking" {
					e.thinking[b.thinking].Text += sval(d["thinking"])
					e.reasoning += sval(d["thinking"])
				}
			case "signature_delta":
				if b != nil && b.kind == "thinking" {
					e.thinking[b.thinking].Signature += sval(d["signature"])
				}
			case "input_json_delta":
				if b != nil && b.call != nil && sval(d["partial_json"]) != "" {
					b.call.args.WriteString(sval(d["partial_json"]))
					b.streamed = true
				}
			}
		case "content_block_stop":
			stop(blocks[ival(m["index"])])
		case "message_delta":
			if s := sval(obj(m["delta"])["stop_reason"]); s != "" {
				e.stop = s
			}
			setUsage(obj(m["usage"]), false)
		case "message_stop":
			done = true
		case "error":
			e.err = true
			return e
		}
		if done {
			break
		}
	}
	for _, b := range blocks {
		stop(b)
	}
	e.err = !done
	for _, c := range calls {
		e.calls = append(e.calls, chat.ToolCall{ID: c.id, Name: c.name, Arguments: c.args.String()})
	}
	e.usage = chat.Usage{InputTokens: u.in, OutputTokens: u.out, CacheReadTokens: u.read, CacheWriteTokens: u.write}
	return e
}

func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSpace(b.Bytes())
}

// readResponses reads an OpenAI Responses API stream.
func readResponses(body []byte) expected {
	var e expected
	type out struct {
		kind     string
		call     *refCall
		streamed bool
		summary  float64
	}
	outs := map[float64]*out{}
	var calls []*refCall
	done := false
	for _, ev := range splitSSE(body) {
		var m map[string]any
		if json.Unmarshal([]byte(ev.data), &m) != nil {
			e.err = true
			return e
		}
		idx, _ := m["output_index"].(float64)
		o := outs[idx]
		switch sval(m["type"]) {
		case "response.output_item.added":
			it := obj(m["item"])
			o = &out{kind: sval(it["type"]), summary: -1}
			if o.kind == "function_call" {
				o.call = &refCall{id: sval(it["call_id"]), name: sval(it["name"])}
				calls = append(calls, o.call)
			}
			outs[idx] = o
		case "response.output_text.delta", "response.refusal.delta":
			e.text += sval(m["delta"])
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			si, _ := m["summary_index"].(float64)
			if o != nil && o.kind == "reasoning" && sval(m["delta"]) != "" {
				if si != o.summary && o.summary >= 0 {
					e.reasoning += "\n\n"
				}
				o.summary = si
				e.reasoning += sval(m["delta"])
			}
		case "response.function_call_arguments.delta":
			if o != nil && o.call != nil && sval(m["delta"]) != "" {
				o.call.args.WriteString(sval(m["delta"]))
				o.streamed = true
			}
		case "response.output_item.done":
			it := obj(m["item"])
			switch {
			case o != nil && (o.kind == "reasoning" || o.kind == "message"):
				e.details = append(e.details, it)
			case o != nil && o.call != nil && !o.streamed:
				o.call.args.WriteString(sval(it["arguments"]))
			}
		case "response.completed", "response.incomplete":
			r := obj(m["response"])
			e.stop = sval(r["status"])
			if reason := sval(obj(r["incomplete_details"])["reason"]); reason != "" {
				e.stop = reason
			}
			if u := obj(r["usage"]); u != nil {
				cached := ival(obj(u["input_tokens_details"])["cached_tokens"])
				e.usage = chat.Usage{InputTokens: ival(u["input_tokens"]) - cached, OutputTokens: ival(u["output_tokens"]), CacheReadTokens: cached}
			}
			done = true
		case "response.failed", "error":
			e.err = true
			return e
		}
		if done {
			break
		}
	}
	e.err = !done
	for _, c := range calls {
		e.calls = append(e.calls, chat.ToolCall{ID: c.id, Name: c.name, Arguments: c.args.String()})
	}
	return e
}
