package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

var okBody = messageStart(1, 0, 0) +
	ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
	textDelta(0, "ok") + blockStop(0) + messageEnd("end_turn", 1)

func TestRequestBody(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: okBody})
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url + "/", APIKey: testKey, Headers: map[string]string{"anthropic-beta": "interleaved-thinking-2025-05-14"}}, Model: "claude-sonnet-4-5", ThinkingBudget: 10000})
	req := llm.Request{
		System: "You are coder.",
		Messages: []chat.Message{
			{Role: chat.RoleUser, Content: "fix <main.go> & test"},
			{Role: chat.RoleUser, Content: "please"},
			{Role: chat.RoleAssistant, Content: "Looking.", Reasoning: "Read first.", ReasoningSignature: "sig==",
				ToolCalls: []chat.ToolCall{
					{ID: "toolu_1", Name: "read_file", Arguments: `{"path":"main.go"}`},
					{ID: "toolu_2", Name: "bash", Arguments: `{"cmd": "go test`}, // cut off: invalid JSON
				}},
			{Role: chat.RoleTool, ToolCallID: "toolu_1", ToolName: "read_file", Content: "package main"},
			{Role: chat.RoleTool, ToolCallID: "toolu_2", ToolName: "bash", Content: "invalid arguments", IsError: true},
			{Role: chat.RoleUser, Content: "also lint"},
			{Role: chat.RoleAssistant, Reasoning: "no signature: not sent", Content: "Done."},
			{Role: chat.RoleAssistant, Content: ""},
		},
		Tools: []chat.ToolSpec{{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
	}
	if _, err := collect(t, p, req); err != nil {
		t.Fatal(err)
	}
	got := fs.requests()[0]
	if got.path != "/v1/messages" {
		t.Fatalf("path = %q", got.path)
	}
	for k, v := range map[string]string{"X-Api-Key": testKey, "Anthropic-Version": "2023-06-01",
		"Content-Type": "application/json", "Anthropic-Beta": "interleaved-thinking-2025-05-14"} {
		if got.header.Get(k) != v {
			t.Fatalf("header %s = %q, want %q", k, got.header.Get(k), v)
		}
	}
	if got.header.Get("Authorization") != "" {
		t.Fatal("Authorization sent to Anthropic")
	}
	want := `{"model":"claude-sonnet-4-5","max_tokens":32000,"system":[{"type":"text","text":"You are coder.","cache_control":{"type":"ephemeral"}}],` +
		`"tools":[{"name":"read_file","description":"Read a file.","input_schema":{"type":"object","properties":{"path":{"type":"string"}}},"cache_control":{"type":"ephemeral"}}],` +
		`"thinking":{"type":"enabled","budget_tokens":10000},"stream":true,"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"fix <main.go> & test"},{"type":"text","text":"please"}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"Read first.","signature":"sig=="},{"type":"text","text":"Looking."},` +
		`{"type":"tool_use","id":"toolu_1","name":"read_file","input":{"path":"main.go"}},` +
		`{"type":"tool_use","id":"toolu_2","name":"bash","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package main"},` +
		`{"type":"tool_result","tool_use_id":"toolu_2","content":"invalid arguments","is_error":true},` +
		`{"type":"text","text":"also lint"}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"Done.","cache_control":{"type":"ephemeral"}}]}]}`
	if got.body != want {
		t.Fatalf("body\n got %s\nwant %s", got.body, want)
	}
	if !json.Valid([]byte(got.body)) {
		t.Fatal("invalid JSON on the wire")
	}
}

func TestRequestDefaults(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: okBody})
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url}, Model: "claude-haiku"})
	if _, err := collect(t, p, testReq); err != nil {
		t.Fatal(err)
	}
	got := fs.requests()[0]
	if _, ok := got.header["X-Api-Key"]; ok {
		t.Fatal("x-api-key sent without a key")
	}
	want := `{"model":"claude-haiku","max_tokens":8192,"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`
	if got.body != want {
		t.Fatalf("body\n got %s\nwant %s", got.body, want)
	}
}

func TestToolResultsMovedFirst(t *testing.T) {
	t.Parallel()
	var in []turn
	for _, m := range []chat.Message{
		{Role: chat.RoleUser, Content: "stray text"},
		{Role: chat.RoleTool, ToolCallID: "t1", Content: "r"},
	} {
		t1, err := encodeMessage(new(llm.Encoder), &m)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, t1)
	}
	msgs := messages(in)
	if len(msgs) != 1 || len(msgs[0].blocks) != 2 {
		t.Fatalf("msgs = %+v", msgs)
	}
	if _, ok := msgs[0].blocks[0].v.(toolResultBlock); !ok {
		t.Fatalf("tool_result not first: %+v", msgs[0].blocks)
	}
	if _, ok := in[0].blocks[0].v.(textBlock); !ok {
		t.Fatal("the turns given were reordered in place")
	}
}
