package anthropic

import (
	"bytes"
	"context"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// TestImagesAsBlocks: a user message's images are image blocks (base64
// source) before its text; a tool result carries its images in its
// content blocks; an image whose bytes are gone is a text block.
func TestImagesAsBlocks(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("ok")}})
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: srv.URL(), APIKey: testKey}, Model: "claude-sonnet-4-5"})
	png := chat.Image{MediaType: "image/png", SHA256: "aa", Name: "shot.png", Data: []byte("PNG")}
	jpg := chat.Image{MediaType: "image/jpeg", SHA256: "bb", Name: "photo.jpg", Data: []byte("JPG")}
	lost := chat.Image{MediaType: "image/png", SHA256: "cc", Name: "old.png"}
	req := llm.Request{RunID: "r", MaxTokens: 100, Messages: []chat.Message{
		{Role: chat.RoleUser, Content: "what is this?", Images: []chat.Image{png, lost}},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c1", Name: "read", Arguments: `{}`}}},
		{Role: chat.RoleTool, ToolCallID: "c1", ToolName: "read", Content: "[photo.jpg]", Images: []chat.Image{jpg}},
	}}
	if err := p.Stream(context.Background(), req, func(chat.MessageDelta) {}); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	msgs := r.Messages()
	if len(msgs) != 3 || len(msgs[0].Images) != 1 || msgs[0].Images[0].Shape != "image" ||
		msgs[0].Images[0].MediaType != "image/png" || !bytes.Equal(msgs[0].Images[0].Data, []byte("PNG")) {
		t.Fatalf("user message %+v", msgs)
	}
	if msgs[0].Text != "[old.png was attached here; its bytes are no longer stored]what is this?" {
		t.Fatalf("user text %q", msgs[0].Text)
	}
	tool := msgs[2]
	if tool.Role != "tool" || tool.Text != "[photo.jpg]" || len(tool.Images) != 1 || tool.Images[0].MediaType != "image/jpeg" ||
		!bytes.Equal(tool.Images[0].Data, []byte("JPG")) {
		t.Fatalf("tool result %+v", tool)
	}
	// Images first, then the text, in the user message.
	if i, j := bytes.Index(r.Body, []byte(`"type":"image"`)), bytes.Index(r.Body, []byte(`"what is this?"`)); i < 0 || j < i {
		t.Fatalf("the image does not come before the text: %s", r.Body)
	}
}
