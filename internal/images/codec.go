package images

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
)

// Each format's decoder is called by name, never through image.Decode's
// registry: what is read is what Sniff said, whatever else is linked in.

func size(format string, data []byte) (w, h int, err error) {
	var c image.Config
	r := bytes.NewReader(data)
	switch format {
	case PNG:
		c, err = png.DecodeConfig(r)
	case JPEG:
		c, err = jpeg.DecodeConfig(r)
	case GIF:
		c, err = gif.DecodeConfig(r)
	case WebP:
		c, err = webp.DecodeConfig(r)
	default:
		err = errors.New("unknown format")
	}
	return c.Width, c.Height, err
}

func decode(format string, data []byte) (image.Image, error) {
	r := bytes.NewReader(data)
	switch format {
	case PNG:
		return png.Decode(r)
	case JPEG:
		return jpeg.Decode(r)
	case GIF:
		return gif.Decode(r) // the first frame
	case WebP:
		return webp.Decode(r)
	}
	return nil, errors.New("unknown format")
}

// fit decodes an image that breaks a limit (or is a GIF), scales it to
// fit MaxSide and encodes it: a photograph (JPEG) stays JPEG, anything
// else becomes PNG, which keeps screenshots' text sharp; an encoding over
// MaxBytes is tried again as JPEG, then smaller, until it fits.
func fit(format string, data []byte) (out []byte, w, h int, mediaType string, err error) {
	src, err := decode(format, data)
	if err != nil {
		return nil, 0, 0, "", fmt.Errorf("unreadable %s: %w", label(format), err)
	}
	side := MaxSide
	for range 6 {
		img := scale(src, side)
		b := img.Bounds()
		if format != JPEG {
			if out, err = encodePNG(img); err == nil && len(out) <= MaxBytes {
				return out, b.Dx(), b.Dy(), PNG, nil
			}
		}
		for _, q := range []int{85, 70} {
			if out, err = encodeJPEG(img, q); err == nil && len(out) <= MaxBytes {
				return out, b.Dx(), b.Dy(), JPEG, nil
			}
		}
		if err != nil {
			return nil, 0, 0, "", err
		}
		side = side * 3 / 4
	}
	return nil, 0, 0, "", fmt.Errorf("cannot be made smaller than %d bytes", MaxBytes)
}

// scale returns src with its longer side at most side pixels, keeping its
// aspect ratio; src itself when it fits already.
func scale(src image.Image, side int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if max(w, h) <= side {
		return src
	}
	if w >= h {
		w, h = side, max(1, h*side/w)
	} else {
		w, h = max(1, w*side/h), side
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	// Catmull-Rom widens its kernel when shrinking, so fine text and
	// lines are averaged rather than dropped.
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	return dst
}

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	var enc png.Encoder
	if err := enc.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode PNG: %w", err)
	}
	return buf.Bytes(), nil
}

func encodeJPEG(img image.Image, quality int) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}); err != nil {
		return nil, fmt.Errorf("encode JPEG: %w", err)
	}
	return buf.Bytes(), nil
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
