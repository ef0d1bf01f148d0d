package openai

import (
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// TestImagesInTheBody: a user message's images are image_url parts after
// its text; a tool result's images, which a tool message cannot carry,
// follow the run of results in one user message; an image whose bytes are
// gone is a line of text.
func TestImagesInTheBody(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: textStream("ok") + done})
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url + "/", APIKey: testKey}, Model: "gpt-4.1"})
	png := chat.Image{MediaType: "image/png", SHA256: "aa", Name: "shot.png", Data: []byte("PNG")}
	jpg := chat.Image{MediaType: "image/jpeg", SHA256: "bb", Name: "photo.jpg", Data: []byte("JPG")}
	lost := chat.Image{MediaType: "image/png", SHA256: "cc", Name: "old.png"}
	req := llm.Request{RunID: "r", Messages: []chat.Message{
		{Role: chat.RoleUser, Content: "what is this?", Images: []chat.Image{png}},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "read", Arguments: `{}`}, {ID: "c2", Name: "read", Arguments: `{}`}}},
		{Role: chat.RoleTool, ToolCallID: "c1", ToolName: "read", Content: "[photo.jpg]", Images: []chat.Image{jpg}},
		{Role: chat.RoleTool, ToolCallID: "c2", ToolName: "read", Content: "[old.png]", Images: []chat.Image{lost}},
		{Role: chat.RoleAssistant, Content: "A photo."},
	}}
	if _, err := collect(t, p, req); err != nil {
		t.Fatal(err)
	}
	want := `{"model":"gpt-4.1","stream":true,"stream_options":{"include_usage":true},"messages":[` +
		`{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,UE5H"}}]},` +
		`{"role":"assistant","content":null,"tool_calls":[` +
		`{"id":"c1","type":"function","function":{"name":"read","arguments":"{}"}},` +
		`{"id":"c2","type":"function","function":{"name":"read","arguments":"{}"}}]},` +
		`{"role":"tool","content":"[photo.jpg]","tool_call_id":"c1"},` +
		`{"role":"tool","content":"[old.png]","tool_call_id":"c2"},` +
		`{"role":"user","content":[{"type":"text","text":"` + llm.ToolImagesNote + `"},` +
		`{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,SlBH"}},` +
		`{"type":"text","text":"[old.png was attached here; its bytes are no longer stored]"}]},` +
		`{"role":"assistant","content":"A photo."}]}`
	if got := fs.requests()[0].body; got != want {
		t.Fatalf("body\n got %s\nwant %s", got, want)
	}
}
