package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// grepFixture adds to ignoreFixture the cases where backends could disagree.
func grepFixture(t *testing.T) *Workspace {
	t.Helper()
	ws := newWS(t)
	writeFiles(t, ws.Root, ignoreFixture)
	var ctx strings.Builder
	for i := 1; i <= 20; i++ {
		if i == 5 || i == 7 || i == 15 {
			fmt.Fprintf(&ctx, "needle %d\n", i)
		} else {
			fmt.Fprintf(&ctx, "line %d\n", i)
		}
	}
	writeFiles(t, ws.Root, map[string]string{
		"ctx.txt":              ctx.String(),
		"bin.dat":              "needle\x00binary\n",
		"late-bin.dat":         strings.Repeat("needle filler\n", 20000) + "\x00",
		"latin.txt":            "needle caf\xe9\n",
		"crlf.txt":             "needle\r\nother needle\r\n",
		"unicode.txt":          "é needle\nnaïve needle\n",
		"with space.txt":       "needle\n",
		"web/x.ts":             "export const needle = 1\n",
		"web/y.tsx":            "// needle\n",
		"web/z.js":             "needle()\n",
		"sub/.gitignore":       "*\n!keep.md\n",
		"sub/keep.md":          "needle\n",
		"sub/drop.md":          "needle\n",
		"deep/a/b/c/n.md":      "Needle deep\n",
		"dash-file.txt":        "-needle\n",
		"nonl.txt":             "needle no newline",
		"src/util/extra.go":    "package util\n\nvar needleCount = 2 // needle needle\n",
		".hidden/sub/.keep.md": "needle\n",
	})
	if err := os.Symlink("a.go", filepath.Join(ws.Root, "link.go")); err != nil {
		t.Fatal(err)
	}
	return ws
}

var grepCases = []map[string]any{
	{"pattern": "needle"},
	{"pattern": "needle", "include": "*.go"},
	{"pattern": "needle", "include": "*.{ts,tsx}"},
	{"pattern": "needle", "include": "src/**/*.go"},
	{"pattern": "needle", "include": "[a-c]*.go"},
	{"pattern": "needle", "ignore_case": true},
	{"pattern": "NEEDLE", "ignore_case": true, "include": "*.md"},
	{"pattern": "needle", "context": 2},
	{"pattern": "needle", "context": 1, "path": "ctx.txt"},
	{"pattern": "needle", "path": "src"},
	{"pattern": "needle", "path": "src/main.go"},
	{"pattern": "needle", "path": "bin.dat"},
	{"pattern": "needle", "path": "build"},
	{"pattern": `^needle$`},
	{"pattern": `needle\b`},
	{"pattern": `\bneedle\d*`},
	{"pattern": `^\W`},
	{"pattern": `\w+ needle`},
	{"pattern": `\Aneedle`},
	{"pattern": `needle\B`},
	{"pattern": `é needle`},
	{"pattern": `(?i)NAÏVE`},
	{"pattern": `^\pL+ needle$`},
	{"pattern": `[[:upper:]]eedle`},
	// Not `caf.`: on invalid UTF-8 Go's . matches a stray byte, rg's does not.
	{"pattern": `needle caf`},
	{"pattern": `-needle`},
	{"pattern": `(?i)needle \d+`},
	{"pattern": ``, "path": "src/util"},
	{"pattern": `nothing-matches-this`},
}

func TestGrepBuiltin(t *testing.T) {
	t.Parallel()
	ws := grepFixture(t)
	grep := grepTool{ws: ws, backend: grepBuiltin}
	got := mustOK(t, call(t, grep, map[string]any{"pattern": "needle", "path": "src"}))
	want := "src/main.go:4:\tneedle()\nsrc/util/extra.go:3:var needleCount = 2 // needle needle\n"
	if got != want {
		t.Errorf("path src: got\n%s\nwant\n%s", got, want)
	}
	got = mustOK(t, call(t, grep, map[string]any{"pattern": "needle", "path": "ctx.txt", "context": 1}))
	want = "ctx.txt-4-line 4\nctx.txt:5:needle 5\nctx.txt-6-line 6\nctx.txt:7:needle 7\nctx.txt-8-line 8\n--\nctx.txt-14-line 14\nctx.txt:15:needle 15\nctx.txt-16-line 16\n"
	if got != want {
		t.Errorf("context: got\n%s\nwant\n%s", got, want)
	}
	got = mustOK(t, call(t, grep, map[string]any{"pattern": "needle"}))
	for _, skipped := range []string{"app.log", "build/", "src/gen", "src/y.tmp", ".git/", "bin.dat", "late-bin.dat", "link.go", "sub/drop.md", "root-only.txt:", ".env:1:"} {
		if strings.Contains(got, skipped) {
			t.Errorf("output has %s:\n%s", skipped, got)
		}
	}
	for _, kept := range []string{"keep.log:1:", ".hidden/h.txt:1:", "sub/keep.md:1:", "latin.txt:1:needle caf\uFFFD", "crlf.txt:2:other needle\n", "with space.txt:1:", "nonl.txt:1:needle no newline\n"} {
		if !strings.Contains(got, kept) {
			t.Errorf("output lacks %q:\n%s", kept, got)
		}
	}
}

func TestGrepBackendsAgree(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg (ripgrep) is not on PATH: the rg backend is not compared with the built-in one")
	}
	ws := grepFixture(t)
	builtin, rg := grepTool{ws: ws, backend: grepBuiltin}, grepTool{ws: ws, backend: grepRg}
	for _, args := range grepCases {
		b := call(t, builtin, args)
		r := call(t, rg, args)
		if b.Content != r.Content || b.OK != r.OK || b.Summary != r.Summary {
			t.Errorf("%v:\n--- builtin (%s)\n%s--- rg (%s)\n%s", args, b.Summary, b.Content, r.Summary, r.Content)
		}
	}
}

func TestGrepCapAndNotes(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	var many strings.Builder
	for i := 1; i <= 250; i++ {
		fmt.Fprintf(&many, "hit %d\n", i)
	}
	writeFiles(t, ws.Root, map[string]string{"b.txt": many.String(), "a.txt": "hit a\nhit b\n"})
	backends := []string{grepBuiltin}
	if _, err := exec.LookPath("rg"); err == nil {
		backends = append(backends, grepRg)
	}
	for _, backend := range backends {
		got := mustOK(t, call(t, grepTool{ws: ws, backend: backend}, map[string]any{"pattern": "hit"}))
		lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
		if len(lines) != 201 || lines[0] != "a.txt:1:hit a" || lines[199] != "b.txt:198:hit 198" ||
			lines[200] != "[showing the first 200 of 252 matches; narrow the pattern, path or include]" {
			t.Errorf("%s: %d lines, first %q, last two %q", backend, len(lines), lines[0], lines[len(lines)-2:])
		}
	}
}

func TestGrepFailures(t *testing.T) {
	t.Parallel()
	ws := grepFixture(t)
	grep := builtin(t, ws, "grep")
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"pattern": "(unclosed"}, "invalid regular expression \"(unclosed\": error parsing regexp: missing closing )"},
		{map[string]any{"pattern": `(?<=x)y`}, "invalid regular expression"},
		{map[string]any{"pattern": `a\nb`}, "cannot match a line break"},
		{map[string]any{"pattern": "x", "path": "missing"}, "no such file or directory: missing"},
		{map[string]any{"pattern": "x", "include": "[a-"}, "invalid include glob"},
	}
	for _, tt := range tests {
		if msg := failure(t, call(t, grep, tt.args)); !strings.Contains(msg, tt.want) {
			t.Errorf("%v: error %q, want %q", tt.args, msg, tt.want)
		}
	}
	if got := mustOK(t, call(t, grep, map[string]any{"pattern": "zzz-none"})); got != "No matches for zzz-none in ." {
		t.Errorf("no match: %q", got)
	}
}

func TestRgPattern(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]string{
		`\w+\d`:       `[0-9A-Z_a-z]+[0-9]`,
		`\bfoo\B`:     `(?-u:\b)foo(?-u:\B)`,
		`(?i)needle`:  `(?i:NEEDLE)`,
		`\\b`:         `\\b`,
		`[[:space:]]`: `[\t-\r ]`,
	} {
		if got := rgPattern(expr); got != want {
			t.Errorf("rgPattern(%q) = %q, want %q", expr, got, want)
		}
	}
}

// Go accepts an empty class that rg 13 rejects: the automatic choice then
// falls back to the built-in backend.
func TestGrepFallsBackWhenRgRefuses(t *testing.T) {
	t.Parallel()
	ws := grepFixture(t)
	args := map[string]any{"pattern": `needle [0-9]|[^\x00-\x{10FFFF}]`}
	want := mustOK(t, call(t, grepTool{ws: ws, backend: grepBuiltin}, args))
	if got := mustOK(t, call(t, grepTool{ws: ws}, args)); got != want {
		t.Fatalf("auto: got\n%s\nwant\n%s", got, want)
	}
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("rg is not on PATH")
	}
	// Forced to rg, the refusal is reported (newer rg versions may accept it).
	if res := call(t, grepTool{ws: ws, backend: grepRg}, args); !res.OK && !strings.Contains(failure(t, res), "rg did not search") {
		t.Fatalf("forced rg: %s", res.Content)
	} else if res.OK && res.Content != want {
		t.Fatalf("forced rg: got\n%s\nwant\n%s", res.Content, want)
	}
}
