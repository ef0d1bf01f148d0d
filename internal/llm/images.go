package llm

import (
	"encoding/base64"

	"github.com/coder-agent/coder/internal/chat"
)

// Every provider sends a message's images as its protocol's image part: a
// data URL (OpenAI's APIs) or base64 with a media type (Anthropic). An
// image whose bytes are gone (a session recovered without its database)
// is sent as a line of text saying so, never as an empty image.

// ImageBase64 is the image's bytes in standard base64.
func ImageBase64(img chat.Image) string { return base64.StdEncoding.EncodeToString(img.Data) }

// ImageDataURL is the image as a data: URL.
func ImageDataURL(img chat.Image) string {
	return "data:" + img.MediaType + ";base64," + ImageBase64(img)
}

// MissingImage is what is sent in place of an image without bytes.
func MissingImage(img chat.Image) string {
	name := img.Name
	if name == "" {
		name = "an image"
	}
	return "[" + name + " was attached here; its bytes are no longer stored]"
}

// ToolImagesNote opens the user message that carries tool results' images
// on APIs whose tool results take only text (Chat Completions): the
// message follows the results, as opencode does for such APIs.
const ToolImagesNote = "Image(s) from the tool results above:"
