package images

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pattern is a w×h image with detail everywhere (stripes and a gradient),
// so PNG cannot squeeze it to nothing.
func pattern(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 7), uint8(y * 13), uint8((x ^ y) * 3), 255})
		}
	}
	return img
}

func pngBytes(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// solidWebP is a lossless WebP (VP8L) of one colour: every prefix code has
// a single symbol, so the pixels take no bits at all.
func solidWebP(w, h int, c color.NRGBA) []byte {
	var bits []bool
	put := func(v uint32, n int) {
		for i := range n {
			bits = append(bits, v>>i&1 == 1)
		}
	}
	put(uint32(w-1), 14)
	put(uint32(h-1), 14)
	put(1, 1) // alpha used
	put(0, 3) // version
	put(0, 1) // no transform
	put(0, 1) // no colour cache
	put(0, 1) // no meta prefix codes
	for _, sym := range []uint8{c.G, c.R, c.B, c.A} {
		put(1, 1) // simple code
		put(0, 1) // one symbol
		put(1, 1) // of 8 bits
		put(uint32(sym), 8)
	}
	put(1, 1) // distance: simple, one symbol of 1 bit: 0
	put(0, 1)
	put(0, 1)
	put(0, 1)
	data := []byte{0x2f}
	for i := 0; i < len(bits); i += 8 {
		var b byte
		for j := 0; j < 8 && i+j < len(bits); j++ {
			if bits[i+j] {
				b |= 1 << j
			}
		}
		data = append(data, b)
	}
	if len(data)%2 == 1 {
		data = append(data, 0)
	}
	var out bytes.Buffer
	out.WriteString("RIFF")
	_ = binary.Write(&out, binary.LittleEndian, uint32(4+8+len(data)))
	out.WriteString("WEBPVP8L")
	_ = binary.Write(&out, binary.LittleEndian, uint32(len(data)))
	out.Write(data)
	return out.Bytes()
}

func TestSmallImagesAreSentAsTheyAre(t *testing.T) {
	data := pngBytes(t, pattern(40, 30))
	p, err := Prepare(data, "small.png")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p.Data, data) || p.MediaType != PNG || p.Width != 40 || p.Height != 30 || p.Scaled() {
		t.Fatalf("a small PNG changed: %s, %d bytes (was %d)", p.Describe(), len(p.Data), len(data))
	}
	if p.SHA256 != Digest(data) || len(p.SHA256) != 64 {
		t.Fatalf("digest %q", p.SHA256)
	}
}

func TestLargeImagesAreScaledToTheLongSide(t *testing.T) {
	for _, tc := range []struct{ w, h, ww, wh int }{
		{1700, 800, MaxSide, 737},
		{500, 1800, 435, MaxSide},
	} {
		p, err := Prepare(pngBytes(t, pattern(tc.w, tc.h)), "big.png")
		if err != nil {
			t.Fatal(err)
		}
		if p.Width != tc.ww || p.Height != tc.wh || !p.Scaled() || p.OrigWidth != tc.w {
			t.Fatalf("%d×%d became %s", tc.w, tc.h, p.Describe())
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(p.Data))
		if err != nil || cfg.Width != tc.ww || cfg.Height != tc.wh {
			t.Fatalf("the bytes sent are not the %d×%d PNG described: %v %+v", tc.ww, tc.wh, err, cfg)
		}
		if len(p.Data) > MaxBytes {
			t.Fatalf("%d bytes, over the limit", len(p.Data))
		}
		if !strings.Contains(p.Describe(), "scaled down from") {
			t.Fatalf("describe: %s", p.Describe())
		}
	}
}

func TestGIFGoesAsItsFirstFrameInPNG(t *testing.T) {
	pal := color.Palette{color.Black, color.White}
	frame := image.NewPaletted(image.Rect(0, 0, 10, 10), pal)
	frame.SetColorIndex(3, 3, 1)
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{frame, frame}, Delay: []int{1, 1}}); err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(buf.Bytes(), "anim.gif")
	if err != nil {
		t.Fatal(err)
	}
	if p.MediaType != PNG || p.Converted != "GIF" || p.Width != 10 {
		t.Fatalf("%+v", p.Describe())
	}
	img, err := png.Decode(bytes.NewReader(p.Data))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _, _ := img.At(3, 3).RGBA(); r == 0 {
		t.Fatal("the frame's white pixel is lost")
	}
}

func TestWebPIsRead(t *testing.T) {
	data := solidWebP(20, 10, color.NRGBA{10, 200, 30, 255})
	p, err := Prepare(data, "shot.webp")
	if err != nil {
		t.Fatal(err)
	}
	if p.MediaType != WebP || p.Width != 20 || p.Height != 10 || !bytes.Equal(p.Data, data) {
		t.Fatalf("%s", p.Describe())
	}
	// The decoder reads what the header promises: the colour is right.
	img, err := decode(WebP, data)
	if err != nil {
		t.Fatal(err)
	}
	if c := color.NRGBAModel.Convert(img.At(5, 5)).(color.NRGBA); c.G != 200 || c.R != 10 {
		t.Fatalf("pixel %v", c)
	}
}

func TestNotAnImage(t *testing.T) {
	for name, data := range map[string][]byte{
		"notes.png":  []byte("just text, named .png"),
		"trunc.png":  pngBytes(t, pattern(20, 20))[:30],
		"empty.jpeg": nil,
	} {
		if _, err := Prepare(data, name); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestHugeImagesAreRefusedBeforeDecoding(t *testing.T) {
	// A PNG header claiming 100000×100000 pixels: refused from its
	// header, nothing decoded.
	data := pngBytes(t, pattern(2, 2))
	binary.BigEndian.PutUint32(data[16:], 100000)
	binary.BigEndian.PutUint32(data[20:], 100000)
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29])) // IHDR's
	_, err := Prepare(data, "bomb.png")
	if err == nil || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("%v", err)
	}
}

func TestLoadRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, "a directory"); err == nil {
		t.Fatal("a directory loaded")
	}
	p := filepath.Join(dir, "x.png")
	if err := os.WriteFile(p, pngBytes(t, pattern(4, 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	if img, err := Load(p, "x.png"); err != nil || img.Width != 4 {
		t.Fatalf("%v %+v", err, img)
	}
}

func TestIsImagePath(t *testing.T) {
	for p, want := range map[string]bool{"a.PNG": true, "b.jpeg": true, "c.webp": true, "d.gif": true, "e.bmp": false, "f.png.txt": false} {
		if IsImagePath(p) != want {
			t.Errorf("%s: %v", p, !want)
		}
	}
}
