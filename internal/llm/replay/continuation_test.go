package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// continuation sends the turn after a recording's tool calls (the calls,
// then a result for each) and checks the request against the provider's
// documented rules. It returns the rule checked and any problem.
func continuation(srv *server, n int, p llm.Provider, msg chat.Message, want expected) (rule, problem string) {
	rec := srv.recs[n]
	seen := map[string]bool{}
	for i := range msg.ToolCalls { // as the orchestrator does for missing or repeated ids
		if id := msg.ToolCalls[i].ID; id == "" || seen[id] {
			msg.ToolCalls[i].ID = fmt.Sprintf("call_replay_%d", i)
		}
		seen[msg.ToolCalls[i].ID] = true
	}
	history := []chat.Message{{Role: chat.RoleUser, Content: "hi"}, msg}
	for _, c := range msg.ToolCalls {
		history = append(history, chat.Message{Role: chat.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: "ok"})
	}
	err := p.Stream(context.Background(), llm.Request{RunID: "replay", ModelCallIndex: 2, Messages: history}, func(chat.MessageDelta) {})
	if err != nil {
		return "", fmt.Sprintf("continuation failed: %v", err)
	}
	srv.mu.Lock()
	sent := srv.bodies[n][1]
	srv.mu.Unlock()
	if rec.Protocol == "responses" {
		return responsesRules([]byte(sent), msg, want)
	}
	var body struct {
		Messages []map[string]json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal([]byte(sent), &body); err != nil || len(body.Messages) < 2 {
		return "", fmt.Sprintf("continuation body: %v: %s", err, sent)
	}
	if rec.Protocol == "anthropic" {
		return anthropicRules(body.Messages, msg, want)
	}
	return openAIRules(rec, body.Messages, msg, want)
}

// openAIRules: the assistant message carries the calls, each call gets
// its result, and the reasoning goes back in the field it came in —
// DeepSeek and Moonshot require reasoning_content on tool-call turns,
// OpenRouter requires reasoning_details (encrypted entries included)
// unmodified — except to Groq and Cerebras, which reject the fields.
func openAIRules(rec recording, msgs []map[string]json.RawMessage, msg chat.Message, want expected) (string, string) {
	a := msgs[1]
	var calls []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	_ = json.Unmarshal(a["tool_calls"], &calls)
	if len(calls) != len(msg.ToolCalls) {
		return "", fmt.Sprintf("%d tool calls sent back, want %d", len(calls), len(msg.ToolCalls))
	}
	for i, c := range calls {
		w := msg.ToolCalls[i]
		args := w.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		if c.ID != w.ID || c.Function.Name != w.Name || c.Function.Arguments != args {
			return "", fmt.Sprintf("call %d sent as %+v, want %+v", i, c, w)
		}
		if !answered(msgs, w.ID) {
			return "", fmt.Sprintf("no tool message for %s", w.ID)
		}
	}
	var parts []string
	str := func(k string) string { var s string; _ = json.Unmarshal(a[k], &s); return s }
	if rec.Provider == "groq" || rec.Provider == "cerebras" {
		for _, k := range []string{"reasoning", "reasoning_content", "reasoning_details"} {
			if a[k] != nil {
				return "", fmt.Sprintf("%s sent to %s, which rejects it", k, rec.Provider)
			}
		}
		return rec.Provider + ": no reasoning fields (the endpoint rejects them)", ""
	}
	if len(want.details) > 0 {
		var got []any
		_ = json.Unmarshal(a["reasoning_details"], &got)
		wantDetails := make([]any, len(want.details))
		encrypted := 0
		for i, d := range want.details {
			wantDetails[i] = any(d)
			if d["type"] == "reasoning.encrypted" {
				encrypted++
			}
		}
		if !reflect.DeepEqual(normalizeJSON(got), normalizeJSON(wantDetails)) {
			return "", fmt.Sprintf("reasoning_details sent back\n  got  %s\n  want %s", a["reasoning_details"], mustJSON(wantDetails))
		}
		if a["reasoning"] != nil {
			return "", "reasoning sent beside reasoning_details"
		}
		parts = append(parts, "reasoning_details"+plural(encrypted, " (with encrypted entries)"))
	} else if r := want.fields["reasoning"]; r != "" {
		if str("reasoning") != r {
			return "", fmt.Sprintf("reasoning sent back %q, want %q", str("reasoning"), r)
		}
		parts = append(parts, "reasoning")
	}
	if r := want.fields["reasoning_content"]; r != "" {
		if str("reasoning_content") != r {
			return "", fmt.Sprintf("reasoning_content sent back %q, want %q", str("reasoning_content"), r)
		}
		parts = append(parts, "reasoning_content")
	}
	if r := want.fields["thinking_part"]; r != "" {
		if !strings.Contains(string(a["content"]), `"type":"thinking"`) {
			return "", "thinking parts not sent back in content"
		}
		parts = append(parts, "thinking parts in content")
	}
	if len(parts) == 0 {
		return rec.Provider + ": tool calls and results (no reasoning came)", ""
	}
	return rec.Provider + ": " + strings.Join(parts, " + ") + " sent back with the calls", ""
}

func plural(n int, s string) string {
	if n == 0 {
		return ""
	}
	return s
}

func answered(msgs []map[string]json.RawMessage, id string) bool {
	for _, m := range msgs {
		var got string
		_ = json.Unmarshal(m["tool_call_id"], &got)
		if got == id {
			return true
		}
	}
	return false
}

// anthropicRules: the assistant turn starts with its thinking and
// redacted_thinking blocks, in order, each with its own signature (an
// unsigned block cannot be sent back), then text, then the tool_use
// blocks; the next user turn starts with a tool_result for each.
func anthropicRules(msgs []map[string]json.RawMessage, msg chat.Message, want expected) (string, string) {
	var blocks []map[string]any
	_ = json.Unmarshal(msgs[1]["content"], &blocks)
	var expect []map[string]any
	signed := 0
	for _, b := range want.thinking {
		switch {
		case b.Kind == chat.ReasoningThinking && b.Signature != "":
			expect = append(expect, map[string]any{"type": "thinking", "thinking": b.Text, "signature": b.Signature})
			signed++
		case b.Kind == chat.ReasoningRedacted:
			var v map[string]any
			_ = json.Unmarshal([]byte(b.Raw), &v)
			expect = append(expect, v)
			signed++
		}
	}
	if want.text != "" {
		expect = append(expect, map[string]any{"type": "text", "text": want.text})
	}
	for _, c := range msg.ToolCalls {
		var input any = map[string]any{}
		var v map[string]any
		if json.Unmarshal([]byte(c.Arguments), &v) == nil && v != nil {
			input = v
		}
		expect = append(expect, map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": input})
	}
	got := make([]map[string]any, len(blocks))
	for i, b := range blocks {
		delete(b, "cache_control")
		got[i] = b
	}
	if !reflect.DeepEqual(normalizeJSON(got), normalizeJSON(expect)) {
		return "", fmt.Sprintf("assistant turn sent back\n  got  %s\n  want %s", mustJSON(got), mustJSON(expect))
	}
	var results []map[string]any
	_ = json.Unmarshal(msgs[2]["content"], &results)
	for i, c := range msg.ToolCalls {
		if i >= len(results) || results[i]["type"] != "tool_result" || results[i]["tool_use_id"] != c.ID {
			return "", fmt.Sprintf("tool_result %d for %s missing or out of place: %s", i, c.ID, msgs[2]["content"])
		}
	}
	if signed == 0 {
		return "anthropic: tool_use then tool_result (no thinking came)", ""
	}
	return "anthropic: thinking blocks first, each with its own signature", ""
}

// normalizeJSON round-trips v so maps and numbers compare by value.
func normalizeJSON(v any) any {
	var out any
	_ = json.Unmarshal(mustJSON(v), &out)
	return out
}

// responsesRules: nothing is stored (store: false), so the input repeats
// the turn's output items in order: each reasoning item as it came, its id
// included, status left out (an item with no reasoning inline is left
// out: its id would refer to nothing stored); each message with its phase
// (the API asks for it back); the function calls, then an output for
// each; and the encrypted content is asked for again.
func responsesRules(sent []byte, msg chat.Message, want expected) (string, string) {
	var body struct {
		Store   *bool            `json:"store"`
		Include []string         `json:"include"`
		Input   []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(sent, &body); err != nil || len(body.Input) < 2 {
		return "", fmt.Sprintf("continuation body: %v: %s", err, sent)
	}
	if body.Store == nil || *body.Store {
		return "", "store is not false"
	}
	expect, reasoning, phases := expectedItems(want)
	for _, c := range msg.ToolCalls {
		expect = append(expect, map[string]any{"type": "function_call", "call_id": c.ID, "name": c.Name, "arguments": c.Arguments})
	}
	for _, c := range msg.ToolCalls {
		expect = append(expect, map[string]any{"type": "function_call_output", "call_id": c.ID, "output": "ok"})
	}
	got := make([]any, len(body.Input)-1)
	for i, it := range body.Input[1:] {
		got[i] = it
	}
	if !reflect.DeepEqual(normalizeJSON(got), normalizeJSON(expect)) {
		return "", fmt.Sprintf("input after the user message\n  got  %s\n  want %s", mustJSON(got), mustJSON(expect))
	}
	rule := "openai (Responses): function calls and outputs"
	if reasoning > 0 {
		if len(body.Include) == 0 || body.Include[0] != "reasoning.encrypted_content" {
			return "", fmt.Sprintf("include = %v", body.Include)
		}
		rule += ", reasoning items with their ids and inline reasoning"
	}
	if phases > 0 {
		rule += ", messages with their phase"
	}
	return rule + ", store false", ""
}

// expectedItems is the recorded turn's output items as they go back (see
// responsesRules), with how many reasoning items and phased messages.
func expectedItems(want expected) (items []any, reasoning, phases int) {
	for _, it := range want.details {
		switch it["type"] {
		case "reasoning":
			enc, _ := it["encrypted_content"].(string)
			content, _ := it["content"].([]any)
			if enc == "" && len(content) == 0 {
				continue
			}
			item := map[string]any{}
			for k, v := range it {
				if k != "status" {
					item[k] = v
				}
			}
			items = append(items, item)
			reasoning++
		case "message":
			text := ""
			parts, _ := it["content"].([]any)
			for _, p := range parts {
				if pm, _ := p.(map[string]any); pm["type"] == "output_text" {
					text += pm["text"].(string)
				}
			}
			m := map[string]any{"type": "message", "role": "assistant",
				"content": []any{map[string]any{"type": "output_text", "text": text}}}
			if ph, _ := it["phase"].(string); ph != "" {
				m["phase"] = ph
				phases++
			}
			items = append(items, m)
		}
	}
	return items, reasoning, phases
}
