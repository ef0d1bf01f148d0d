package anthropic

import (
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// imageBlock is {"type":"image","source":{"type":"base64",...}}: in a user
// message, or in a tool result's content.
type imageBlock struct {
	Type   string      `json:"type"`
	Source imageSource `json:"source"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// imageBlocks are the images as blocks; one whose bytes are gone is a
// text block saying so.
func imageBlocks(imgs []chat.Image) []any {
	var blocks []any
	for _, img := range imgs {
		if img.Data == nil {
			blocks = append(blocks, textBlock{Type: "text", Text: llm.MissingImage(img)})
			continue
		}
		blocks = append(blocks, imageBlock{Type: "image",
			Source: imageSource{Type: "base64", MediaType: img.MediaType, Data: llm.ImageBase64(img)}})
	}
	return blocks
}
