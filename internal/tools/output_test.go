//go:build unix

package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// A running command's output reaches the context's OutputFunc while it runs,
// stream by stream, beyond the model's cap; the model's result is unchanged.
func TestBashReportsOutputLive(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	var mu sync.Mutex
	got := map[string]*strings.Builder{"stdout": {}, "stderr": {}}
	var once sync.Once
	ctx := WithOutput(context.Background(), func(stream string, p []byte) {
		mu.Lock()
		got[stream].Write(p)
		mu.Unlock()
		once.Do(func() { writeFiles(t, ws.Root, map[string]string{"go": ""}) })
	})
	// The command waits until its first line was reported, so the report
	// cannot have been made after the command ended.
	res := callCtx(t, ctx, bashTool{ws: ws, outputLimit: 10, launch: Direct{Dir: ws.Root}},
		map[string]any{"command": "echo first line; for i in $(seq 500); do [ -e go ] && break; sleep 0.01; done; [ -e go ] || exit 9; echo oops >&2; seq 1 5"})
	if out := bashResult(t, res); out.ExitCode != 0 || !out.Truncated || !strings.Contains(out.Stdout, " cut]…\n") {
		t.Fatalf("the model's result changed: %+v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if got["stdout"].String() != "first line\n1\n2\n3\n4\n5\n" || got["stderr"].String() != "oops\n" {
		t.Fatalf("live output %q / %q", got["stdout"], got["stderr"])
	}
}

// A 20,000-line output: the model is given its first and last lines with
// the cut marked between them, and the file the mark names holds every
// byte, made afresh in the given directory.
func TestCutOutputKeepsHeadTailAndTheWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var whole strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&whole, "line %d of the run\n", i)
	}
	whole.WriteString("--- FAIL: TestX FINAL-ERROR\n")
	w := &cutOutput{limit: 64 << 10, open: func() (*os.File, error) { return os.CreateTemp(dir, "out-*.txt") }}
	for s := whole.String(); s != ""; {
		n := min(len(s), 1000+len(s)%3000) // uneven writes
		if _, err := w.Write([]byte(s[:n])); err != nil {
			t.Fatal(err)
		}
		s = s[n:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := w.String()
	if !w.truncated() || len(got) > 64<<10+300 || !strings.HasPrefix(got, "line 1 of the run\nline 2 of") ||
		!strings.HasSuffix(got, "line 20000 of the run\n--- FAIL: TestX FINAL-ERROR\n") {
		t.Fatalf("%d bytes, starting %q, ending %q", len(got), got[:40], got[len(got)-80:])
	}
	head, rest, ok := strings.Cut(got, "…[")
	mark, tail, _ := strings.Cut(rest, "]…\n")
	if !ok || !strings.HasSuffix(head, "\n") || !strings.HasPrefix(tail, "line ") {
		t.Fatalf("the cut is not between whole lines:\n%q … %q", head[len(head)-30:], tail[:30])
	}
	var cutBytes, cutLines int
	if _, err := fmt.Sscanf(mark, "%d bytes / %d lines cut", &cutBytes, &cutLines); err != nil {
		t.Fatalf("mark %q: %v", mark, err)
	}
	if len(head)+cutBytes+len(tail) != whole.Len() ||
		strings.Count(head, "\n")+cutLines+strings.Count(tail, "\n") != strings.Count(whole.String(), "\n") {
		t.Fatalf("mark %q does not account for the output", mark)
	}
	path := w.fullPath()
	if filepath.Dir(path) != dir || !strings.Contains(mark, "the whole output (20001 lines) is in "+path) {
		t.Fatalf("mark %q, file %q", mark, path)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != whole.String() {
		t.Fatalf("the file holds %d bytes of %d: %v", len(b), whole.Len(), err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v", fi.Mode())
	}
}

// Cuts inside multi-byte characters leave valid UTF-8; an output within
// the limit is given whole, and no file is made for it.
func TestCutOutputEdges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		limit    int
		want     string
	}{
		{"within", "héllo\n", 64, "héllo\n"},
		{"exactly", "abcd", 4, "abcd"},
		{"wide characters", strings.Repeat("中", 40), 30, "中中\n…[93 bytes / 0 lines cut]…\n" + strings.Repeat("中", 7)},
		{"no cap", strings.Repeat("x", 5000), 0, strings.Repeat("x", 5000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opened := false
			w := &cutOutput{limit: tc.limit, open: func() (*os.File, error) { opened = true; return nil, os.ErrPermission }}
			_, _ = w.Write([]byte(tc.in))
			if got := w.String(); got != tc.want || !utf8.ValidString(got) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if opened != w.truncated() {
				t.Fatalf("file asked for: %v, cut: %v", opened, w.truncated())
			}
		})
	}
}
