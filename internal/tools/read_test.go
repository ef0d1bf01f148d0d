package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%6d\tline %d\n", i, i)
	}
	return b.String()
}

func TestRead(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	var ten, big strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&ten, "line %d\n", i)
	}
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	writeFiles(t, ws.Root, map[string]string{
		"ten.txt":  ten.String(),
		"big.txt":  big.String(),
		"crlf.txt": "a\r\nb\r\n",
		"nonl.txt": "x\ny",
		"empty":    "",
		"dir/":     "",
		"latin1":   "caf\xe9\n",
	})
	read := builtin(t, ws, "read")
	tests := []struct {
		name, path   string
		offset, limt int
		want         string
	}{
		{"whole", "ten.txt", 0, 0, numbered(1, 10)},
		{"offset", "ten.txt", 4, 0, numbered(4, 10)},
		{"offset and limit", "ten.txt", 3, 2, numbered(3, 4) + "\n[showing lines 3-4 of 10; use offset=5 to read on]"},
		{"default limit", "big.txt", 0, 0, numbered(1, 2000) + "\n[showing lines 1-2000 of 2500; use offset=2001 to read on]"},
		{"limit to last line", "ten.txt", 9, 2, numbered(9, 10)},
		{"crlf", "crlf.txt", 0, 0, "     1\ta\n     2\tb\n"},
		{"no final newline", "nonl.txt", 0, 0, "     1\tx\n     2\ty\n\\ No newline at end of file\n"},
		{"no final newline, first line only", "nonl.txt", 1, 1, "     1\tx\n\n[showing lines 1-1 of 2; use offset=2 to read on]"},
		{"empty", "empty", 0, 0, "(empty is empty)"},
		{"invalid utf-8 made valid", "latin1", 0, 0, "     1\tcaf\uFFFD\n"},
	}
	for _, tt := range tests {
		args := map[string]any{"path": tt.path}
		if tt.offset > 0 {
			args["offset"] = tt.offset
		}
		if tt.limt > 0 {
			args["limit"] = tt.limt
		}
		if got := mustOK(t, call(t, read, args)); got != tt.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
}

func TestReadRefusals(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"
	writeFiles(t, ws.Root, map[string]string{
		"img.png":    png,
		"noext":      png,
		"old.bmp":    "BM\x3e\x00\x00\x00\x00\x00\x00\x00\x3e\x00",
		"fake.jpg":   "actually text\n",
		"prog.bin":   "\x7fELF\x02\x01\x01\x00\x00\x00",
		"random.dat": strings.Repeat("\xff\xfe\x80\x81", 100),
		"short.txt":  "one\ntwo\n",
		"dir/":       "",
	})
	read := builtin(t, ws, "read")
	tests := []struct{ path, want string }{
		{"img.png", "img.png: unreadable PNG"},
		{"noext", "noext: unreadable PNG"},
		{"old.bmp", "old.bmp is an image (image/bmp"},
		{"prog.bin", "prog.bin looks like a binary file"},
		{"random.dat", "random.dat looks like a binary file"},
		{"dir", "dir is a directory; use list"},
		{"missing.go", "no such file or directory: missing.go"},
	}
	for _, tt := range tests {
		if msg := failure(t, call(t, read, map[string]any{"path": tt.path})); !strings.HasPrefix(msg, tt.want) {
			t.Errorf("%s: error %q, want prefix %q", tt.path, msg, tt.want)
		}
	}
	if got := mustOK(t, call(t, read, map[string]any{"path": "fake.jpg"})); got != "     1\tactually text\n" {
		t.Errorf("text file with an image extension: %q", got)
	}
	msg := failure(t, call(t, read, map[string]any{"path": "short.txt", "offset": 5}))
	if msg != "offset 5 is past the end of short.txt (2 lines)" {
		t.Errorf("offset past end: %q", msg)
	}
}

func TestReadCutsLongLinesAndCapsBytes(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	long := strings.Repeat("é", 3000)
	var wide strings.Builder
	for i := 0; i < 300; i++ {
		wide.WriteString(strings.Repeat("x", 1500) + "\n")
	}
	writeFiles(t, ws.Root, map[string]string{"long.txt": long + "\nnext\n", "wide.txt": wide.String()})
	read := builtin(t, ws, "read")

	got := mustOK(t, call(t, read, map[string]any{"path": "long.txt"}))
	want := "     1\t" + strings.Repeat("é", 2000) + " [line cut]\n     2\tnext\n"
	if got != want {
		t.Errorf("long line: got %d bytes, want %d", len(got), len(want))
	}

	// Each shown line is 1508 bytes: the window closes after the line that
	// crosses 256 KiB, the 174th.
	got = mustOK(t, call(t, read, map[string]any{"path": "wide.txt"}))
	note := "\n[showing lines 1-174 of 300 (output capped at 256 KiB); use offset=175 to read on]"
	if !strings.HasSuffix(got, note) || strings.Count(got, "\n") != 175 {
		t.Errorf("byte cap: %d bytes, tail %q", len(got), got[len(got)-120:])
	}
}

func TestReadFollowsSymlinkInside(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"real.txt": "hi\n"})
	if err := os.Symlink("real.txt", filepath.Join(ws.Root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if got := mustOK(t, call(t, builtin(t, ws, "read"), map[string]any{"path": "link.txt"})); got != "     1\thi\n" {
		t.Fatalf("got %q", got)
	}
}
