package chat

import "slices"

// Image is a picture that goes with a message: one a person attached to a
// request, or one a tool read (read of an image file). Its bytes are held
// in memory only: sessions store each image once, keyed by SHA256, and a
// message's record names it, so a long session does not repeat it in every
// snapshot. Data is nil when the stored bytes could not be found again
// (providers then send a note in its place).
type Image struct {
	// MediaType is image/png, image/jpeg, image/gif or image/webp.
	MediaType string `json:"media_type"`
	// SHA256 is the hex digest of Data: the key it is stored under.
	SHA256 string `json:"sha256"`
	// Name is where it came from, for people: a path or "pasted image".
	Name string `json:"name,omitempty"`
	// Width and Height are in pixels, as sent.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`

	Data []byte `json:"-"`
}

// imagesEqual compares two lists of images by what identifies them: their
// digest names their bytes.
func imagesEqual(a, b []Image) bool {
	return slices.EqualFunc(a, b, func(x, y Image) bool {
		return x.MediaType == y.MediaType && x.SHA256 == y.SHA256 && x.Name == y.Name &&
			x.Width == y.Width && x.Height == y.Height && (x.Data == nil) == (y.Data == nil)
	})
}
