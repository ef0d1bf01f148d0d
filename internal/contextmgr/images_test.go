package contextmgr

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestFindImages(t *testing.T) {
	ws, elsewhere, home := t.TempDir(), t.TempDir(), t.TempDir()
	for _, p := range []string{filepath.Join(ws, "shot.png"), filepath.Join(ws, "docs", "a b.jpg"),
		filepath.Join(elsewhere, "Screen Shot 1.png"), filepath.Join(home, "Desktop", "cap.webp"), filepath.Join(elsewhere, "x.gif")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("img"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(ws, "dir.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(elsewhere, "Screen Shot 1.png")
	tests := []struct {
		name, input string
		names       []string
		problems    []string
	}{
		{"at ref", "what is in @shot.png?", []string{"shot.png"}, nil},
		{"quoted at ref", `compare @"docs/a b.jpg" and @shot.png`, []string{"docs/a b.jpg", "shot.png"}, nil},
		{"once", "@shot.png and @./shot.png", []string{"shot.png"}, nil},
		{"missing and outside", "@nope.png @../x.gif @dir.png", nil,
			[]string{"nope.png: not found", "../x.gif: outside the workspace", "dir.png: not a regular file"}},
		{"single-quoted paste", "look: '" + shot + "' please", []string{shot}, nil},
		{"double-quoted paste", `"` + shot + `"`, []string{shot}, nil},
		{"escaped paste", strings.ReplaceAll(shot, " ", `\ `) + " what is wrong", []string{shot}, nil},
		{"home paste, sentence end", "see ~/Desktop/cap.webp.", []string{filepath.Join(home, "Desktop", "cap.webp")}, nil},
		{"not images", "read " + filepath.Join(elsewhere, "notes.txt") + " and /no/such.png and mail a@shot.png", nil, nil},
		{"a relative bare name is not a paste", "shot.png", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			refs, problems := FindImages(tc.input, ws, home)
			var names []string
			for _, r := range refs {
				names = append(names, r.Name)
				if !filepath.IsAbs(r.Abs) {
					t.Errorf("%s: Abs %q", r.Name, r.Abs)
				}
			}
			if !reflect.DeepEqual(names, tc.names) || !reflect.DeepEqual(problems, tc.problems) {
				t.Fatalf("got %q %q, want %q %q", names, problems, tc.names, tc.problems)
			}
		})
	}
}

// TestAtImagesAreNotText: an @path to an image is not attached as text
// nor reported as a binary file: it goes as an image.
func TestAtImagesAreNotText(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "shot.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, attached, missing := ExpandAtRefs("see @shot.png", ws, AtLimits{})
	if out != "see @shot.png" || attached != nil || missing != nil {
		t.Fatalf("%q %q %q", out, attached, missing)
	}
}
