package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Image is one image part a request carried, decoded.
type Image struct {
	// Shape names the part as it came: "image_url" (Chat Completions),
	// "input_image" (Responses) or "image" (Anthropic, base64 source).
	Shape     string
	MediaType string
	Data      []byte
	// Bad says what was wrong with the part (not base64, no media type);
	// "" for a well-formed one.
	Bad string
}

// imagesOf reads the image parts of a content array, whatever the
// protocol; nil for a string content.
func imagesOf(raw json.RawMessage) []Image {
	var parts []struct {
		Type     string          `json:"type"`
		ImageURL json.RawMessage `json:"image_url"`
		Source   struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []Image
	for _, p := range parts {
		switch p.Type {
		case "image_url": // {"url": "data:..."}
			var u struct {
				URL string `json:"url"`
			}
			_ = json.Unmarshal(p.ImageURL, &u)
			out = append(out, fromDataURL("image_url", u.URL))
		case "input_image": // "data:..."
			var u string
			_ = json.Unmarshal(p.ImageURL, &u)
			out = append(out, fromDataURL("input_image", u))
		case "image":
			img := Image{Shape: "image", MediaType: p.Source.MediaType}
			img.Data, img.Bad = decode64(p.Source.Data)
			if p.Source.Type != "base64" || img.MediaType == "" {
				img.Bad = "source is not base64 with a media type"
			}
			out = append(out, img)
		}
	}
	return out
}

func fromDataURL(shape, u string) Image {
	img := Image{Shape: shape}
	head, data, ok := strings.Cut(u, ",")
	mt, isB64 := strings.CutSuffix(strings.TrimPrefix(head, "data:"), ";base64")
	if !ok || !strings.HasPrefix(head, "data:") || !isB64 || mt == "" {
		img.Bad = "not a base64 data URL"
		return img
	}
	img.MediaType = mt
	img.Data, img.Bad = decode64(data)
	return img
}

func decode64(s string) ([]byte, string) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, "not base64: " + err.Error()
	}
	return b, ""
}
