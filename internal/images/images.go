// Package images holds the pictures coder sends a model: recognising image
// files, decoding them (the standard library's PNG, JPEG and GIF decoders,
// golang.org/x/image/webp) and fitting them to what every provider accepts
// (scaled with golang.org/x/image/draw, re-encoded when they must change).
// One rule serves every protocol, the strictest of them (Anthropic's):
// the long side at most 1568 pixels, the bytes at most 3.75 MB (5 MB once
// base64-encoded); OpenAI's 20 MB and 2048-pixel tiles are then met too.
package images

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/regfile"
)

// The limits, in one place.
const (
	// MaxSide is the longest side sent, in pixels: Anthropic's recommended
	// size (larger images are scaled down by the API anyway, later).
	MaxSide = 1568
	// MaxBytes bounds the encoded image: Anthropic refuses more than 5 MB
	// of base64, which is 3.75 MB of bytes.
	MaxBytes = 3_750_000
	// MaxFileBytes bounds the file read; a larger one is refused unread.
	MaxFileBytes = 64 << 20
	// MaxPixels bounds what is decoded (4 bytes a pixel in memory).
	MaxPixels = 50_000_000
)

// The media types sent.
const (
	PNG  = "image/png"
	JPEG = "image/jpeg"
	GIF  = "image/gif"
	WebP = "image/webp"
)

var exts = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true}

// IsImagePath reports whether path's extension names a format coder sends.
func IsImagePath(path string) bool { return exts[strings.ToLower(filepath.Ext(path))] }

// Prepared is an image ready to send, and what was done to it.
type Prepared struct {
	chat.Image
	// OrigWidth and OrigHeight are the source's size; they differ from
	// the image's when it was scaled down.
	OrigWidth, OrigHeight int
	// Converted names the source format when the image was re-encoded
	// into another (a GIF's first frame as PNG, say).
	Converted string
}

// Scaled reports whether the image was made smaller than its source.
func (p Prepared) Scaled() bool { return p.Width != p.OrigWidth || p.Height != p.OrigHeight }

// Describe is one line for people and the model: "shot.png: 1568×980 PNG,
// scaled down from 3136×1960".
func (p Prepared) Describe() string {
	s := fmt.Sprintf("%s: %d×%d %s", p.Name, p.Width, p.Height, strings.ToUpper(strings.TrimPrefix(p.MediaType, "image/")))
	if p.Scaled() {
		s += fmt.Sprintf(", scaled down from %d×%d", p.OrigWidth, p.OrigHeight)
	}
	return s
}

// Load reads an image file (regular and bounded: no FIFO hang, no
// /dev/zero) and prepares it; name is how it is shown.
func Load(path, name string) (Prepared, error) {
	data, err := regfile.Read(path, MaxFileBytes)
	if err != nil {
		return Prepared{}, fmt.Errorf("%s: %w", name, trimPath(err, path))
	}
	return Prepare(data, name)
}

// trimPath drops the path the error repeats: the caller names the file.
func trimPath(err error, path string) error {
	return errors.New(strings.TrimPrefix(err.Error(), path+": "))
}

// Prepare checks data is an image of a format sent (by its bytes, not its
// name) and fits it to the limits: an image within them is sent as it is;
// a larger one is scaled down and re-encoded.
func Prepare(data []byte, name string) (Prepared, error) {
	format := Sniff(data)
	if format == "" {
		return Prepared{}, fmt.Errorf("%s: not a PNG, JPEG, GIF or WebP image", name)
	}
	w, h, err := size(format, data)
	if err != nil {
		return Prepared{}, fmt.Errorf("%s: unreadable %s: %w", name, label(format), err)
	}
	if w <= 0 || h <= 0 {
		return Prepared{}, fmt.Errorf("%s: an image of %d×%d pixels", name, w, h)
	}
	if int64(w)*int64(h) > MaxPixels {
		return Prepared{}, fmt.Errorf("%s: %d×%d pixels is too large to read (at most %d megapixels)", name, w, h, MaxPixels/1_000_000)
	}
	p := Prepared{OrigWidth: w, OrigHeight: h}
	// A GIF goes as its first frame in PNG: OpenAI takes no animation.
	if format != GIF && max(w, h) <= MaxSide && len(data) <= MaxBytes {
		p.Image = chat.Image{MediaType: format, Data: data, Width: w, Height: h}
	} else {
		out, ow, oh, mt, err := fit(format, data)
		if err != nil {
			return Prepared{}, fmt.Errorf("%s: %w", name, err)
		}
		p.Image = chat.Image{MediaType: mt, Data: out, Width: ow, Height: oh}
		if mt != format {
			p.Converted = label(format)
		}
	}
	p.Name = name
	p.SHA256 = Digest(p.Data)
	return p, nil
}

// Digest is the hex SHA-256 of data: an image's storage key.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Sniff names the format data is in by its first bytes, "" for none sent.
func Sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return PNG
	case bytes.HasPrefix(data, []byte("\xff\xd8\xff")):
		return JPEG
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return GIF
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return WebP
	}
	return ""
}

func label(mediaType string) string {
	return strings.ToUpper(strings.TrimPrefix(mediaType, "image/"))
}

// DataURL is the image as a data: URL (what OpenAI's APIs take).
func DataURL(img chat.Image) string {
	return "data:" + img.MediaType + ";base64," + base64Std(img.Data)
}
