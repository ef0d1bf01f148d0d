package contextmgr

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func atWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	writeFile(t, filepath.Join(ws, "with space.txt"), "spaced\n")
	writeFile(t, filepath.Join(ws, "docs", "a.md"), "# A\n")
	writeFile(t, filepath.Join(ws, "docs", "sub", "b.md"), "# B\n")
	writeFile(t, filepath.Join(ws, "fenced.md"), "```go\nx := 1\n```\n")
	writeFile(t, filepath.Join(ws, "big.txt"), strings.Repeat("0123456789abcdef\n", 100))
	if err := os.WriteFile(filepath.Join(ws, "logo.bin"), []byte("\x89PNG\r\n\x1a\n\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(filepath.Dir(ws), filepath.Base(ws)+"-secret.txt")
	writeFile(t, outside, "TOP-SECRET-CONTENT\n")
	t.Cleanup(func() { os.Remove(outside) })
	if err := os.Symlink(outside, filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestExpandAtRefs(t *testing.T) {
	t.Parallel()
	ws := atWorkspace(t)
	outsideAbs := filepath.Join(filepath.Dir(ws), filepath.Base(ws)+"-secret.txt")
	for _, c := range []struct {
		name     string
		input    string
		attached []string
		missing  []string
		contains []string // substrings of the expanded message
	}{
		{name: "file", input: "explain @main.go please", attached: []string{"main.go"},
			contains: []string{"[file main.go]\n```\npackage main\n```"}},
		{name: "sentence punctuation", input: "look at @main.go.", attached: []string{"main.go"}},
		{name: "start of input", input: "@main.go", attached: []string{"main.go"}},
		{name: "line suffix", input: "bug at @main.go:12, see", attached: []string{"main.go"}},
		{name: "directory", input: "what is in @docs", attached: []string{"docs"},
			contains: []string{"[directory docs]\na.md\nsub/"}},
		{name: "missing", input: "see @nope.go", missing: []string{"nope.go: not found"}},
		{name: "dotdot escape", input: "@../" + filepath.Base(outsideAbs), missing: []string{"../" + filepath.Base(outsideAbs) + ": outside the workspace"}},
		{name: "absolute outside", input: "@" + outsideAbs, missing: []string{outsideAbs + ": outside the workspace"}},
		{name: "absolute inside", input: "@" + filepath.Join(ws, "main.go"), attached: []string{"main.go"}},
		{name: "symlink out", input: "@link.txt", missing: []string{"link.txt: outside the workspace"}},
		{name: "binary", input: "@logo.bin", missing: []string{"logo.bin: binary file, not attached"}},
		{name: "email not matched", input: "mail me at dev@main.go or a@b.c"},
		{name: "diff hunk not matched", input: "@@ -1,3 +1,4 @@"},
		{name: "quoted path", input: `read @"with space.txt" now`, attached: []string{"with space.txt"},
			contains: []string{"[file with space.txt]\n```\nspaced\n```"}},
		{name: "unclosed quote", input: `read @"with space.txt`},
		{name: "duplicate", input: "@main.go and @./main.go", attached: []string{"main.go"}},
		{name: "fence inside content", input: "@fenced.md", attached: []string{"fenced.md"},
			contains: []string{"````\n```go\nx := 1\n```\n````"}},
		{name: "several", input: "@main.go\n@docs/a.md @nope", attached: []string{"main.go", "docs/a.md"},
			missing: []string{"nope: not found"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, attached, missing := ExpandAtRefs(c.input, ws, AtLimits{})
			if !slices.Equal(attached, c.attached) {
				t.Errorf("attached = %q, want %q", attached, c.attached)
			}
			if !slices.Equal(missing, c.missing) {
				t.Errorf("missing = %q, want %q", missing, c.missing)
			}
			if !strings.HasPrefix(got, c.input) {
				t.Errorf("the original text is not first: %q", got)
			}
			if len(attached) == 0 && got != c.input {
				t.Errorf("nothing attached but the message changed: %q", got)
			}
			for _, s := range c.contains {
				if !strings.Contains(got, s) {
					t.Errorf("expanded message lacks %q:\n%s", s, got)
				}
			}
			if strings.Contains(got, "TOP-SECRET-CONTENT") {
				t.Error("content from outside the workspace was sent")
			}
		})
	}
}

func TestExpandAtRefsLimits(t *testing.T) {
	t.Parallel()
	ws := atWorkspace(t)
	got, attached, _ := ExpandAtRefs("@big.txt", ws, AtLimits{MaxFileBytes: 100})
	if len(attached) != 1 || !strings.Contains(got, "[truncated: first 85 of 1700 bytes") {
		t.Errorf("file cap: attached %q\n%s", attached, got)
	}
	got, _, _ = ExpandAtRefs("@docs", ws, AtLimits{MaxDirEntries: 1})
	if !strings.Contains(got, "a.md\n[… more entries not shown") {
		t.Errorf("directory cap:\n%s", got)
	}
	_, attached, missing := ExpandAtRefs("@big.txt @main.go", ws, AtLimits{MaxTotalBytes: 1000})
	if !slices.Equal(attached, []string{"main.go"}) || len(missing) != 1 || !strings.Contains(missing[0], "limit") {
		t.Errorf("total cap: attached %q missing %q", attached, missing)
	}
}
