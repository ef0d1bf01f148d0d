package tools

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A file above MaxFileBytes is refused by write, edit and patch from its
// size, before it is read: a 1 GiB (sparse) file costs no memory, and the
// message says what to do instead. A file at the limit's side is edited.
func TestFileAboveTheLimitIsRefusedBeforeItIsRead(t *testing.T) {
	ws := newWS(t)
	big := filepath.Join(ws.Root, "big.log")
	if err := os.WriteFile(big, []byte("head\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, builtin(t, ws, "read"), map[string]any{"path": "big.log"}))
	if err := os.Truncate(big, 1<<30); err != nil {
		t.Fatal(err)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"edit", map[string]any{"path": "big.log", "old_string": "head", "new_string": "HEAD"}},
		{"write", map[string]any{"path": "big.log", "content": "small\n"}},
		{"patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: big.log\n-head\n+HEAD\n*** End Patch"}},
	} {
		msg := failure(t, call(t, builtin(t, ws, c.tool), c.args))
		if !strings.Contains(msg, "1024.0 MiB, more than the 64.0 MiB") || !strings.Contains(msg, "sed -i") {
			t.Errorf("%s: %s", c.tool, msg)
		}
	}
	runtime.ReadMemStats(&m1)
	if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 16<<20 {
		t.Fatalf("refusing allocated %d MiB: the file was read", grew>>20)
	}
	if fi, _ := os.Stat(big); fi.Size() != 1<<30 {
		t.Fatalf("the file changed: %d bytes", fi.Size())
	}
	// Positive control: under the limit, the same edit works.
	if err := os.Truncate(big, 5); err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, builtin(t, ws, "read"), map[string]any{"path": "big.log"}))
	mustOK(t, call(t, builtin(t, ws, "edit"), map[string]any{"path": "big.log", "old_string": "head", "new_string": "HEAD"}))
}

// An edit whose result would pass the limit is refused, nothing written.
func TestResultAboveTheLimitIsRefused(t *testing.T) {
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"f.txt": "x\n"})
	g := builtin(t, ws, "edit").(editTool).g
	tg := target{Abs: filepath.Join(ws.Root, "f.txt"), Rel: "f.txt", Inside: true}
	res := g.commit(tg, fileRead{text: "x\n"}, &change{abs: tg.Abs, existed: true, before: "x\n", after: strings.Repeat("y", MaxFileBytes+1)})
	if res.OK || !strings.Contains(res.Content, "more than the 64.0 MiB") {
		t.Fatalf("%+v", res.Content)
	}
	if got := readFile(t, tg.Abs); got != "x\n" {
		t.Fatalf("written: %d bytes", len(got))
	}
}

// lines is an endless text of short lines, generated as it is read.
type lines struct{ left int }

func (l *lines) Read(p []byte) (int, error) {
	if l.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), l.left)
	for i := range n {
		p[i] = "ab\n"[i%3]
	}
	l.left -= n
	return n, nil
}

// read states a line count as exact only when it counted every line.
func TestReadStatesACountOnlyWhenItCounted(t *testing.T) {
	for _, c := range []struct {
		size int
		want string
	}{
		{3 * 1000, "lines 1-5 of 1000"},
		{3 * (countRestMax/3 + 1000), "lines 1-5 of at least"},
	} {
		res, err := readLines(context.Background(), bufio.NewReader(&lines{left: c.size}), "f", 1, 5)
		if err != nil || !strings.HasPrefix(res.Summary, c.want) || !strings.Contains(res.Content, "of "+strings.TrimPrefix(c.want, "lines 1-5 of ")) {
			t.Errorf("%d bytes: %q\n%s", c.size, res.Summary, res.Content[strings.LastIndex(res.Content, "["):])
		}
	}
}
