package responses

import (
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// A user message or a function call's output with images is a list of
// parts: input_text, then an input_image (a data URL) per image. Unlike
// Chat Completions, a Responses tool output carries images itself.
type (
	userMessage struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []any  `json:"content"`
	}
	imagePart struct {
		Type     string `json:"type"`
		ImageURL string `json:"image_url"`
	}
)

func withImages(m *chat.Message) []any {
	var parts []any
	if m.Content != "" {
		parts = append(parts, part{Type: "input_text", Text: m.Content})
	}
	for _, img := range m.Images {
		if img.Data == nil {
			parts = append(parts, part{Type: "input_text", Text: llm.MissingImage(img)})
			continue
		}
		parts = append(parts, imagePart{Type: "input_image", ImageURL: llm.ImageDataURL(img)})
	}
	return parts
}
