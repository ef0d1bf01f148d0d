package openai

import (
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/catalog"
)

// encoded is one history message's encoding and, for a tool result with
// images, its images' parts: a tool message takes text only, so they go
// in a user message after the run of tool results (another message
// between two results of one call's batch is refused).
type encoded struct {
	msg    []byte
	tool   bool // a tool result
	images [][]byte
}

func encodeMessage(e *llm.Encoder, m *chat.Message, r catalog.Rules) (encoded, error) {
	msg, err := e.Encode(convert(m, r))
	out := encoded{msg: msg, tool: m.Role == chat.RoleTool}
	if err != nil || !out.tool || len(m.Images) == 0 {
		return out, err
	}
	for _, p := range imageParts(m.Images) {
		b, err := e.Encode(p)
		if err != nil {
			return encoded{}, err
		}
		out.images = append(out.images, b)
	}
	return out, nil
}

// imageParts are the images as content parts: image_url with a data URL,
// or a text note for one whose bytes are gone.
func imageParts(imgs []chat.Image) []contentPart {
	parts := make([]contentPart, 0, len(imgs))
	for _, img := range imgs {
		if img.Data == nil {
			parts = append(parts, contentPart{Type: "text", Text: llm.MissingImage(img)})
			continue
		}
		parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{URL: llm.ImageDataURL(img)}})
	}
	return parts
}

// The punctuation of the message that carries tool results' images (the
// note is plain ASCII: it needs no escaping).
var (
	toolImagesHead = []byte(`{"role":"user","content":[{"type":"text","text":"` + llm.ToolImagesNote + `"}`)
	comma          = []byte(",")
	closeImages    = []byte("]}")
)

// addMessages adds the history's encodings, each run of tool results
// followed by one user message with their images, if they had any.
func addMessages(b *llm.Body, msgs []encoded) {
	var pending [][]byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		pieces := [][]byte{toolImagesHead}
		for _, p := range pending {
			pieces = append(pieces, comma, p)
		}
		b.Item(append(pieces, closeImages)...)
		pending = nil
	}
	for _, m := range msgs {
		if !m.tool {
			flush()
		}
		b.Item(m.msg)
		pending = append(pending, m.images...)
	}
	flush()
}
