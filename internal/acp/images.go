package acp

import (
	"encoding/base64"
	"path"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/images"
)

// imageInput is an editor's image block as an image of the request: its
// bytes checked and fitted to the providers' limits like any other image.
// Whether the model takes images the core says, when the turn starts.
func imageInput(b *sdk.ContentBlockImage) (chat.Image, error) {
	name := "pasted image"
	if b.Uri != nil && *b.Uri != "" {
		name = path.Base(*b.Uri)
	}
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		return chat.Image{}, &sdk.RequestError{Code: codeInvalidParams, Message: "image block: its data is not base64: " + err.Error()}
	}
	p, err := images.Prepare(data, name)
	if err != nil {
		return chat.Image{}, &sdk.RequestError{Code: codeInvalidParams, Message: "image block: " + err.Error()}
	}
	return p.Image, nil
}
