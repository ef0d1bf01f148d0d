package openai

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

func TestRequestBody(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: textStream("ok") + done})
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url + "/", APIKey: testKey, Headers: map[string]string{"X-Title": "coder"}}, Model: "my-local-model", ReasoningEffort: "high", MaxTokens: 4096})
	req := llm.Request{
		RunID:  "r",
		System: "You are coder.",
		Messages: []chat.Message{
			{Role: chat.RoleUser, Content: "list <files> & grep"},
			{Role: chat.RoleAssistant, Reasoning: "secret thoughts", ToolCalls: []chat.ToolCall{
				{ID: "call_1", Name: "ls", Arguments: `{"path":"."}`},
				{ID: "call_2", Name: "grep", Arguments: ""},
			}},
			{Role: chat.RoleTool, ToolCallID: "call_1", ToolName: "ls", Content: "a.go\nb.go"},
			{Role: chat.RoleTool, ToolCallID: "call_2", ToolName: "grep", Content: "no matches", IsError: true},
			{Role: chat.RoleAssistant, Content: "Two files."},
			{Role: chat.RoleUser, Content: "thanks"},
		},
		Tools: []chat.ToolSpec{
			{Name: "ls", Description: "List a directory.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "pwd", Description: "Print the directory."},
		},
	}
	if _, err := collect(t, p, req); err != nil {
		t.Fatal(err)
	}
	got := fs.requests()[0]
	if got.path != "/v1/chat/completions" {
		t.Fatalf("path = %q", got.path)
	}
	if h := got.header.Get("Authorization"); h != "Bearer "+testKey {
		t.Fatalf("Authorization = %q", h)
	}
	if got.header.Get("X-Title") != "coder" || got.header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers = %v", got.header)
	}
	want := `{"model":"my-local-model",` +
		`"tools":[` +
		`{"type":"function","function":{"name":"ls","description":"List a directory.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},` +
		`{"type":"function","function":{"name":"pwd","description":"Print the directory.","parameters":{"type":"object","properties":{}}}}],` +
		`"stream":true,"stream_options":{"include_usage":true},"max_tokens":4096,"reasoning_effort":"high",` +
		`"messages":[` +
		`{"role":"system","content":"You are coder."},` +
		`{"role":"user","content":"list <files> & grep"},` +
		`{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"call_1","type":"function","function":{"name":"ls","arguments":"{\"path\":\".\"}"}},` +
		`{"id":"call_2","type":"function","function":{"name":"grep","arguments":"{}"}}]},` +
		`{"role":"tool","content":"a.go\nb.go","tool_call_id":"call_1"},` +
		`{"role":"tool","content":"no matches","tool_call_id":"call_2"},` +
		`{"role":"assistant","content":"Two files."},` +
		`{"role":"user","content":"thanks"}]}`
	if got.body != want {
		t.Fatalf("body\n got %s\nwant %s", got.body, want)
	}
	if bytes.Contains([]byte(got.body), []byte("secret thoughts")) {
		t.Fatal("reasoning of unknown origin was sent back")
	}
}

func TestRequestMinimal(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: textStream("ok") + done})
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url}, Model: "llama3"})
	if _, err := collect(t, p, llm.Request{Model: "qwen3", MaxTokens: 100, Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	got := fs.requests()[0]
	if _, ok := got.header["Authorization"]; ok {
		t.Fatal("Authorization sent without a key")
	}
	want := `{"model":"qwen3","stream":true,"stream_options":{"include_usage":true},"max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`
	if got.body != want {
		t.Fatalf("body\n got %s\nwant %s", got.body, want)
	}
}
