package tools

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadShowsAnImage: read of a PNG (whatever its name) gives the image
// itself, fitted to the providers' limits, and a line saying what it is.
func TestReadShowsAnImage(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	img := image.NewRGBA(image.Rect(0, 0, 2000, 100))
	for x := range 2000 {
		img.Set(x, x%100, color.RGBA{255, 0, 0, 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws.Root, "wide"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	res := call(t, builtin(t, ws, "read"), map[string]any{"path": "wide"})
	if !res.OK || len(res.Images) != 1 {
		t.Fatalf("%+v", res)
	}
	got := res.Images[0]
	if got.MediaType != "image/png" || got.Width != 1568 || got.Height != 78 || len(got.SHA256) != 64 {
		t.Fatalf("image %+v", got)
	}
	if !strings.Contains(res.Content, "wide: 1568×78 PNG, scaled down from 2000×100") {
		t.Fatalf("content %q", res.Content)
	}
}
