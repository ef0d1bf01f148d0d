package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// setMtimes gives the files increasing modification times in the order given.
func setMtimes(t *testing.T, root string, paths ...string) {
	t.Helper()
	base := time.Now().Add(-time.Hour)
	for i, p := range paths {
		ts := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(root, p), ts, ts); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, ignoreFixture)
	setMtimes(t, ws.Root, ".hidden/h.txt", "src/root-only.txt", "src/main.go", "a.go", "src/util/u.go", "keep.log", "src/gen/x.go")
	glob := builtin(t, ws, "glob")
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "**/*.go"}, "src/util/u.go\na.go\nsrc/main.go\n"},
		{map[string]any{"pattern": "*.go"}, "a.go\n"},
		{map[string]any{"pattern": "src/**/*.go"}, "src/util/u.go\nsrc/main.go\n"},
		{map[string]any{"pattern": "**/*.go", "path": "src"}, "src/util/u.go\nsrc/main.go\n"},
		{map[string]any{"pattern": "*.{log,txt}"}, "keep.log\n"},
		{map[string]any{"pattern": "**/*.txt"}, "src/root-only.txt\n.hidden/h.txt\n"},
		{map[string]any{"pattern": "**/HEAD"}, "No files match **/HEAD in ."},
	}
	for _, tt := range tests {
		if got := mustOK(t, call(t, glob, tt.args)); got != tt.want {
			t.Errorf("%v: got %q, want %q", tt.args, got, tt.want)
		}
	}
	abs := mustOK(t, call(t, glob, map[string]any{"pattern": filepath.Join(ws.Root, "src/**/*.go")}))
	if abs != "src/util/u.go\nsrc/main.go\n" {
		t.Errorf("absolute pattern: %q", abs)
	}
	same := time.Now().Add(-time.Minute)
	for _, p := range []string{"src/util/u.go", "a.go"} {
		_ = os.Chtimes(filepath.Join(ws.Root, p), same, same)
	}
	if got := mustOK(t, call(t, glob, map[string]any{"pattern": "**/u.go"})); got != "src/util/u.go\n" {
		t.Errorf("u.go: %q", got)
	}
	if got := mustOK(t, call(t, glob, map[string]any{"pattern": "{a,src/util/u}.go"})); got != "a.go\nsrc/util/u.go\n" {
		t.Errorf("equal mtimes are ordered by path: %q", got)
	}
	if msg := failure(t, call(t, glob, map[string]any{"pattern": "[a-"})); !strings.Contains(msg, "invalid glob pattern") {
		t.Errorf("bad pattern: %q", msg)
	}
}

func TestGlobCaps(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	files := map[string]string{}
	var order []string
	for i := range 205 {
		p := fmt.Sprintf("d/f%03d.txt", i)
		files[p] = ""
		order = append(order, p)
	}
	writeFiles(t, ws.Root, files)
	setMtimes(t, ws.Root, order...)
	got := mustOK(t, call(t, builtin(t, ws, "glob"), map[string]any{"pattern": "**/*.txt"}))
	lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	if len(lines) != 201 || lines[0] != "d/f204.txt" || lines[199] != "d/f005.txt" {
		t.Fatalf("got %d lines, first %q, 200th %q", len(lines), lines[0], lines[min(199, len(lines)-1)])
	}
	if lines[200] != "[showing the 200 newest of 205 files; narrow the pattern or path]" {
		t.Fatalf("note: %q", lines[200])
	}
}
