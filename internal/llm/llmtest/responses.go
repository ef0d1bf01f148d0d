package llmtest

import (
	"fmt"
	"time"
)

// responsesWire speaks OpenAI's Responses API (POST /v1/responses) the way
// api.openai.com streams it: "event: <type>" then the event's JSON with a
// sequence_number; a reasoning item, a message and function calls each
// opened by response.output_item.added and closed by .done, which alone
// carries the final item (a reasoning item's encrypted_content differs
// from the one .added showed); response.completed, or response.incomplete
// for a truncated step, with usage.
type responsesWire struct{}

// rsBuilder accumulates the events of one response.
type rsBuilder struct {
	events []event
	seq    int
	output []any // the finished items, for the final response object
}

func (b *rsBuilder) add(typ string, v obj, final bool) {
	v = append(obj{"type", typ}, v...)
	v = append(v, "sequence_number", b.seq)
	b.seq++
	b.events = append(b.events, jsonEvent(typ, v, final))
}

func (responsesWire) stream(st *Step, step int, in inbound) []event {
	b := &rsBuilder{}
	id := fmt.Sprintf("resp_llmtest_%d", step)
	created := time.Now().Unix()
	head := func(status string) obj {
		return obj{"id", id, "object", "response", "created_at", created, "status", status, "model", in.Model,
			"output", []any{}, "usage", nil}
	}
	b.add("response.created", obj{"response", head("in_progress")}, false)
	b.add("response.in_progress", obj{"response", head("in_progress")}, false)
	n := st.chunkSize()
	out := 0
	if st.Reasoning != "" {
		b.reasoningItem(st, step, out, n)
		out++
	}
	if st.Text != "" {
		b.messageItem(st, step, out, n)
		out++
	}
	for i := range st.ToolCalls {
		b.callItem(st, step, i, out, n)
		out++
	}
	b.finish(st, in, head("completed"))
	return b.events
}

func (b *rsBuilder) reasoningItem(st *Step, step, out, n int) {
	id := fmt.Sprintf("rs_llmtest_%d", step)
	b.add("response.output_item.added", obj{"output_index", out, "item",
		obj{"id", id, "type", "reasoning", "encrypted_content", "llmtest-partial", "summary", []any{}}}, false)
	part := func(text string) obj { return obj{"type", "summary_text", "text", text} }
	b.add("response.reasoning_summary_part.added", obj{"item_id", id, "output_index", out, "summary_index", 0, "part", part("")}, false)
	for _, p := range split(st.Reasoning, n) {
		b.add("response.reasoning_summary_text.delta", obj{"item_id", id, "output_index", out, "summary_index", 0, "delta", p}, false)
	}
	b.add("response.reasoning_summary_text.done", obj{"item_id", id, "output_index", out, "summary_index", 0, "text", st.Reasoning}, false)
	b.add("response.reasoning_summary_part.done", obj{"item_id", id, "output_index", out, "summary_index", 0, "part", part(st.Reasoning)}, false)
	item := obj{"id", id, "type", "reasoning", "encrypted_content", FakeEncrypted(step), "summary", []any{part(st.Reasoning)}}
	b.output = append(b.output, item)
	b.add("response.output_item.done", obj{"output_index", out, "item", item}, false)
}

// messageItem streams the step's text as a message with a phase, as
// gpt-5.x models send it: "commentary" before tool calls, else
// "final_answer".
func (b *rsBuilder) messageItem(st *Step, step, out, n int) {
	id := fmt.Sprintf("msg_llmtest_%d", step)
	phase := "final_answer"
	if len(st.ToolCalls) > 0 {
		phase = "commentary"
	}
	text := func(s string) obj { return obj{"type", "output_text", "annotations", []any{}, "text", s} }
	b.add("response.output_item.added", obj{"output_index", out, "item",
		obj{"id", id, "type", "message", "status", "in_progress", "content", []any{}, "phase", phase, "role", "assistant"}}, false)
	b.add("response.content_part.added", obj{"item_id", id, "output_index", out, "content_index", 0, "part", text("")}, false)
	for _, p := range split(st.Text, n) {
		b.add("response.output_text.delta", obj{"item_id", id, "output_index", out, "content_index", 0, "delta", p}, false)
	}
	b.add("response.output_text.done", obj{"item_id", id, "output_index", out, "content_index", 0, "text", st.Text}, false)
	b.add("response.content_part.done", obj{"item_id", id, "output_index", out, "content_index", 0, "part", text(st.Text)}, false)
	item := obj{"id", id, "type", "message", "status", "completed", "content", []any{text(st.Text)}, "phase", phase, "role", "assistant"}
	b.output = append(b.output, item)
	b.add("response.output_item.done", obj{"output_index", out, "item", item}, false)
}

func (b *rsBuilder) callItem(st *Step, step, i, out, n int) {
	c := st.ToolCalls[i]
	id := fmt.Sprintf("fc_llmtest_%d_%d", step, i)
	callID := st.callID("call", step, i)
	b.add("response.output_item.added", obj{"output_index", out, "item",
		obj{"id", id, "type", "function_call", "status", "in_progress", "arguments", "", "call_id", callID, "name", c.Name}}, false)
	for _, p := range split(c.Args, n) {
		b.add("response.function_call_arguments.delta", obj{"item_id", id, "output_index", out, "delta", p}, false)
	}
	b.add("response.function_call_arguments.done", obj{"item_id", id, "output_index", out, "arguments", c.Args}, false)
	item := obj{"id", id, "type", "function_call", "status", "completed", "arguments", c.Args, "call_id", callID, "name", c.Name}
	b.output = append(b.output, item)
	b.add("response.output_item.done", obj{"output_index", out, "item", item}, false)
}

// finish sends response.completed, or response.incomplete when the step
// is truncated, with the output and usage (input_tokens counts the cached
// tokens, as on OpenAI's wire).
func (b *rsBuilder) finish(st *Step, in inbound, resp obj) {
	u := st.usage(in.size)
	input := u.InputTokens + u.CacheReadTokens
	typ, status, details := "response.completed", "completed", any(nil)
	if reason := st.stopReason(ProtocolResponses); reason != "completed" {
		typ, status, details = "response.incomplete", "incomplete", obj{"reason", reason}
	}
	for i := 0; i+1 < len(resp); i += 2 {
		switch resp[i] {
		case "status":
			resp[i+1] = status
		case "output":
			resp[i+1] = b.output
		case "usage":
			resp[i+1] = obj{"input_tokens", input, "input_tokens_details", obj{"cached_tokens", u.CacheReadTokens},
				"output_tokens", u.OutputTokens, "output_tokens_details", obj{"reasoning_tokens", 0},
				"total_tokens", input + u.OutputTokens}
		}
	}
	resp = append(resp, "incomplete_details", details)
	b.add(typ, obj{"response", resp}, true)
}

// FakeEncrypted is the encrypted_content of a step's reasoning item, so
// tests can check it is passed back in the next request.
func FakeEncrypted(step int) string { return fmt.Sprintf("llmtest-encrypted-%d", step) }

func (responsesWire) brokenEvent() event {
	return event{name: "response.output_text.delta", data: `{"type":"response.output_text.delta","output_index":0,"delta":"tru`}
}

// errorEvent is the Responses API's in-stream error event.
func (responsesWire) errorEvent(status int, msg string) event {
	typ, text := "server_error", "The server had an error while processing your request. Sorry about that!"
	if status == 429 {
		typ, text = "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 1s."
	}
	if msg != "" {
		text = msg
	}
	return jsonEvent("error", obj{"type", "error", "code", typ, "message", text, "param", nil, "sequence_number", 99}, false)
}

// errorBody is the same error object as Chat Completions'.
func (responsesWire) errorBody(status int, msg string, overflow bool) []byte {
	return openAIWire{}.errorBody(status, msg, overflow)
}

func (responsesWire) requestIDHeader() string { return "x-request-id" }

// keepAlive is a comment line: the Responses API has no ping event.
func (responsesWire) keepAlive(int) []byte { return []byte(": keep-alive\n\n") }
