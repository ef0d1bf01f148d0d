package responses

import (
	"bytes"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// TestImagesAsInputImages: a user message's images are input_image parts
// (data URLs) after its input_text, and a function call's output carries
// its images itself, as a list of parts.
func TestImagesAsInputImages(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("ok")}})
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL(), APIKey: testKey, Catalog: "openai"}, Model: "gpt-5"})
	png := chat.Image{MediaType: "image/png", SHA256: "aa", Name: "shot.png", Data: []byte("PNG")}
	jpg := chat.Image{MediaType: "image/jpeg", SHA256: "bb", Name: "photo.jpg", Data: []byte("JPG")}
	req := llm.Request{RunID: "r", Messages: []chat.Message{
		{Role: chat.RoleUser, Content: "what is this?", Images: []chat.Image{png}},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "read", Arguments: `{}`}}},
		{Role: chat.RoleTool, ToolCallID: "c1", ToolName: "read", Content: "[photo.jpg]", Images: []chat.Image{jpg}},
		{Role: chat.RoleTool, ToolCallID: "c2", ToolName: "read", Content: "plain"},
	}}
	if _, err := stream(t, p, req); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Requests()[0].Messages()
	if len(msgs) != 4 || msgs[0].Text != "what is this?" || len(msgs[0].Images) != 1 || msgs[0].Images[0].Shape != "input_image" ||
		!bytes.Equal(msgs[0].Images[0].Data, []byte("PNG")) || msgs[0].Images[0].MediaType != "image/png" {
		t.Fatalf("user message %+v", msgs)
	}
	if tool := msgs[2]; tool.Text != "[photo.jpg]" || len(tool.Images) != 1 || !bytes.Equal(tool.Images[0].Data, []byte("JPG")) {
		t.Fatalf("function call output %+v", tool)
	}
	if tool := msgs[3]; tool.Text != "plain" || tool.Images != nil {
		t.Fatalf("a plain output %+v", tool)
	}
}
