package tools

import (
	"fmt"
	"io"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/images"
)

// readImage is read of an image file: the picture itself, fitted to what
// providers take, for the model to look at. Whether the model can is the
// core's business: it drops the image, saying so, for one that cannot.
func readImage(r io.Reader, rel string) (Result, error) {
	data, err := io.ReadAll(io.LimitReader(r, images.MaxFileBytes+1))
	if err != nil {
		return fileFailure(rel, err), nil
	}
	if len(data) > images.MaxFileBytes {
		return Failure("%s is an image larger than %d MiB; too large to show", rel, images.MaxFileBytes>>20), nil
	}
	p, err := images.Prepare(data, rel)
	if err != nil {
		return Failure("%s", err.Error()), nil
	}
	d := p.Describe()
	return Result{OK: true, Content: fmt.Sprintf("[image %s]", d), Summary: "image " + d, Images: []chat.Image{p.Image}}, nil
}
