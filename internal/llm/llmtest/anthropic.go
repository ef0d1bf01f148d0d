package llmtest

import (
	"fmt"
	"net/http"
)

type anthropicWire struct{}

// anBuilder accumulates the events of one Messages stream; index is the
// next content block's index.
type anBuilder struct {
	events []event
	index  int
	pinged bool
}

func (b *anBuilder) add(name string, v obj, final bool) {
	b.events = append(b.events, jsonEvent(name, append(obj{"type", name}, v...), final))
}

// block sends one content block: start, deltas, stop. The ping follows the
// first block start, where the documented example stream has it.
func (b *anBuilder) block(start obj, deltas []obj) {
	b.add("content_block_start", obj{"index", b.index, "content_block", start}, false)
	b.ping()
	for _, d := range deltas {
		b.add("content_block_delta", obj{"index", b.index, "delta", d}, false)
	}
	b.add("content_block_stop", obj{"index", b.index}, false)
	b.index++
}

func (b *anBuilder) ping() {
	if !b.pinged {
		b.pinged = true
		b.add("ping", obj{}, false)
	}
}

// deltas wraps each piece of s as a delta of the given type, whose payload
// lives under field.
func deltas(s string, n int, typ, field string) []obj {
	var out []obj
	for _, p := range split(s, n) {
		out = append(out, obj{"type", typ, field, p})
	}
	return out
}

// stream orders blocks as the API does: thinking (index 0 when present),
// then text, then one tool_use block per call.
func (anthropicWire) stream(st *Step, step int, in inbound) []event {
	u := st.usage(in.size)
	b := &anBuilder{}
	b.add("message_start", obj{"message", obj{
		"id", fmt.Sprintf("msg_llmtest_%d", step), "type", "message", "role", "assistant",
		"model", in.Model, "content", []any{}, "stop_reason", nil, "stop_sequence", nil,
		"usage", obj{
			"input_tokens", u.InputTokens,
			"cache_creation_input_tokens", u.CacheWriteTokens,
			"cache_read_input_tokens", u.CacheReadTokens,
			"output_tokens", 1,
		},
	}}, false)
	n := st.chunkSize()
	if st.Reasoning != "" {
		ds := deltas(st.Reasoning, n, "thinking_delta", "thinking")
		ds = append(ds, obj{"type", "signature_delta", "signature", FakeSignature(step)})
		b.block(obj{"type", "thinking", "thinking", ""}, ds)
	}
	if st.Text != "" {
		b.block(obj{"type", "text", "text", ""}, deltas(st.Text, n, "text_delta", "text"))
	}
	for i, c := range st.ToolCalls {
		// The API opens input_json with an empty fragment; parsers must cope.
		ds := append([]obj{{"type", "input_json_delta", "partial_json", ""}},
			deltas(c.Args, n, "input_json_delta", "partial_json")...)
		start := obj{"type", "tool_use", "id", st.callID("toolu", step, i), "name", c.Name, "input", obj{}}
		b.block(start, ds)
	}
	b.ping()
	b.add("message_delta", obj{
		"delta", obj{"stop_reason", st.stopReason(ProtocolAnthropic), "stop_sequence", nil},
		"usage", obj{"output_tokens", u.OutputTokens},
	}, true)
	b.add("message_stop", obj{}, true)
	return b.events
}

// FakeSignature is the thinking signature the fake sends for a step, so
// tests can check it is echoed back with the thinking block.
func FakeSignature(step int) string { return fmt.Sprintf("llmtest-signature-%d", step) }

func (anthropicWire) brokenEvent() event {
	return event{name: "content_block_delta", data: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"tru`}
}

func (anthropicWire) errorEvent(status int, msg string) event {
	if status == 0 {
		status = 529 // mid-stream errors are overwhelmingly "overloaded"
	}
	typ, text := anthropicError(status)
	if msg != "" {
		text = msg
	}
	return jsonEvent("error", obj{"type", "error", "error", obj{"type", typ, "message", text}}, false)
}

func (anthropicWire) errorBody(status int, msg string, overflow bool) []byte {
	typ, text := anthropicError(status)
	if overflow {
		typ, text = "invalid_request_error", "prompt is too long: 213456 tokens > 200000 maximum"
	}
	if msg != "" {
		text = msg
	}
	body := obj{"type", "error", "error", obj{"type", typ, "message", text}, "request_id", "req_llmtest"}
	return []byte(jsonEvent("", body, false).data)
}

// anthropicError maps a status to the documented error type and a typical
// message.
func anthropicError(status int) (typ, msg string) {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error", "Invalid request."
	case http.StatusUnauthorized:
		return "authentication_error", "invalid x-api-key"
	case http.StatusForbidden:
		return "permission_error", "Your API key does not have permission to use the specified resource."
	case http.StatusNotFound:
		return "not_found_error", "The requested resource could not be found."
	case http.StatusRequestEntityTooLarge:
		return "request_too_large", "Request exceeds the maximum allowed number of bytes."
	case http.StatusTooManyRequests:
		return "rate_limit_error", "Number of requests has exceeded your rate limit. Please try again later."
	case 529:
		return "overloaded_error", "Overloaded"
	}
	if status >= 400 && status < 500 {
		return "invalid_request_error", "Invalid request."
	}
	return "api_error", "Internal server error"
}

func (anthropicWire) requestIDHeader() string { return "request-id" }

// keepAlive alternates Anthropic's own ping event with a comment line.
func (anthropicWire) keepAlive(n int) []byte {
	if n%2 == 0 {
		return []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n")
	}
	return []byte(": keep-alive\n\n")
}
