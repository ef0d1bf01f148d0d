package tools

import (
	"fmt"
	"strings"
	"testing"
)

// ignoreFixture is a tree exercising .gitignore: root and nested files,
// negation, anchoring, directory patterns, hidden files and .git.
var ignoreFixture = map[string]string{
	".gitignore":        "*.log\nbuild/\n/root-only.txt\n!keep.log\n",
	".git/HEAD":         "ref: refs/heads/main\n",
	".git/config":       "needle\n",
	".env":              "needle=1\n",
	".hidden/h.txt":     "needle hidden\n",
	"a.go":              "package a // needle\n",
	"app.log":           "needle in log\n",
	"keep.log":          "needle kept\n",
	"root-only.txt":     "needle\n",
	"build/out.txt":     "needle\n",
	"src/.gitignore":    "gen/\n*.tmp\n",
	"src/main.go":       "package main\n\nfunc main() {\n\tneedle()\n}\n",
	"src/root-only.txt": "Needle anchored elsewhere\n",
	"src/gen/x.go":      "needle\n",
	"src/y.tmp":         "needle\n",
	"src/util/u.go":     "package util\n// NEEDLE\n",
}

func TestListHonoursGitignore(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, ignoreFixture)
	got := mustOK(t, call(t, builtin(t, ws, "list"), `{}`))
	want := `./
  .env
  .gitignore
  .hidden/
    h.txt
  a.go
  keep.log
  src/
    .gitignore
    main.go
    root-only.txt
    util/
      u.go
`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	got = mustOK(t, call(t, builtin(t, ws, "list"), map[string]any{"path": "src", "depth": 1}))
	if want := "src/\n  .gitignore\n  main.go\n  root-only.txt\n  util/\n"; got != want {
		t.Fatalf("depth 1: got\n%s\nwant\n%s", got, want)
	}
}

func TestListCapsShallowFirst(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	files := map[string]string{"top.txt": "", "z/last.txt": ""}
	for i := range 520 {
		files[fmt.Sprintf("many/f%03d.txt", i)] = ""
	}
	writeFiles(t, ws.Root, files)
	got := mustOK(t, call(t, builtin(t, ws, "list"), `{}`))
	for _, want := range []string{"\n  top.txt\n", "\n  z/\n", "\n  many/\n", "[showing 500 of 524 entries; list a subdirectory or use a smaller depth]"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q", want)
		}
	}
	if n := strings.Count(got, "\n"); n != 502 {
		t.Errorf("%d lines, want root + 500 entries + note", n)
	}
}

func TestListErrors(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"f.go": "x", "empty/": ""})
	list := builtin(t, ws, "list")
	if msg := failure(t, call(t, list, map[string]any{"path": "f.go"})); !strings.Contains(msg, "f.go is a file, not a directory") {
		t.Errorf("file: %q", msg)
	}
	if msg := failure(t, call(t, list, map[string]any{"path": "nope"})); msg != "no such file or directory: nope" {
		t.Errorf("missing: %q", msg)
	}
	if got := mustOK(t, call(t, list, map[string]any{"path": "empty"})); got != "empty/\n(empty directory)\n" {
		t.Errorf("empty: %q", got)
	}
}
