package llmtest

import (
	"reflect"
	"testing"
)

// The same conversation in each protocol's request format: a user turn, an
// assistant turn with reasoning and two tool calls, their results, and a
// follow-up user turn.
const openAIConversation = `{
  "model": "gpt-test", "stream": true,
  "messages": [
    {"role": "system", "content": "You are coder."},
    {"role": "user", "content": [{"type": "text", "text": "list files"}]},
    {"role": "assistant", "content": null, "reasoning_content": "use ls",
     "tool_calls": [
       {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"cmd\":\"ls\"}"}},
       {"id": "call_2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"x\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "a.go\nb.go"},
    {"role": "tool", "tool_call_id": "call_2", "content": "no such file"},
    {"role": "user", "content": "thanks"}
  ],
  "tools": [
    {"type": "function", "function": {"name": "bash", "parameters": {}}},
    {"type": "function", "function": {"name": "read_file", "parameters": {}}}
  ]
}`

const anthropicConversation = `{
  "model": "claude-test", "stream": true, "max_tokens": 100,
  "system": [{"type": "text", "text": "You are coder.", "cache_control": {"type": "ephemeral"}}],
  "messages": [
    {"role": "user", "content": "list files"},
    {"role": "assistant", "content": [
      {"type": "thinking", "thinking": "use ls", "signature": "sig"},
      {"type": "tool_use", "id": "call_1", "name": "bash", "input": {"cmd": "ls"}},
      {"type": "tool_use", "id": "call_2", "name": "read_file", "input": {"path": "x"}}]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "call_1", "content": "a.go\nb.go"},
      {"type": "tool_result", "tool_use_id": "call_2", "content": [{"type": "text", "text": "no such file"}], "is_error": true}]},
    {"role": "user", "content": [{"type": "text", "text": "thanks"}]}
  ],
  "tools": [{"name": "bash", "input_schema": {}}, {"name": "read_file", "input_schema": {}}]
}`

func TestRequestViewsAgreeAcrossProtocols(t *testing.T) {
	want := []Msg{
		{Role: "user", Text: "list files"},
		{Role: "assistant", Reasoning: "use ls", ToolCalls: []ToolCall{
			{ID: "call_1", Name: "bash", Args: `{"cmd":"ls"}`},
			{ID: "call_2", Name: "read_file", Args: `{"path":"x"}`},
		}},
		{Role: "tool", ToolCallID: "call_1", Text: "a.go\nb.go"},
		{Role: "tool", ToolCallID: "call_2", Text: "no such file"},
		{Role: "user", Text: "thanks"},
	}
	cases := []struct {
		protocol, body string
		adjust         func([]Msg) // what only one wire can express
	}{
		{ProtocolOpenAI, openAIConversation, func([]Msg) {}},
		{ProtocolAnthropic, anthropicConversation, func(m []Msg) { m[1].Signature = "sig"; m[3].IsError = true }},
	}
	for _, c := range cases {
		t.Run(c.protocol, func(t *testing.T) {
			r := Request{Protocol: c.protocol, Body: []byte(c.body)}
			w := append([]Msg(nil), want...)
			c.adjust(w)
			if got := r.Messages(); !reflect.DeepEqual(got, w) {
				t.Fatalf("Messages:\n got %+v\nwant %+v", got, w)
			}
			if got := r.ToolResults(); len(got) != 2 || got[1].ToolCallID != "call_2" {
				t.Fatalf("ToolResults: %+v", got)
			}
			if r.System() != "You are coder." {
				t.Fatalf("System = %q", r.System())
			}
			if got := r.ToolNames(); !reflect.DeepEqual(got, []string{"bash", "read_file"}) {
				t.Fatalf("ToolNames = %v", got)
			}
		})
	}
}

func TestRequestViewsOnGarbage(t *testing.T) {
	r := Request{Protocol: ProtocolAnthropic, Body: []byte("not json")}
	if r.Messages() != nil || r.System() != "" || r.ToolNames() != nil || r.Model() != "" {
		t.Fatal("garbage body must give empty views")
	}
}
