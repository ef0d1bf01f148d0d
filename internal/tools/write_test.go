package tools

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteCreatesFileAndParents(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	res := call(t, builtin(t, ws, "write"), map[string]any{"path": "a/b/new.go", "content": "package b\n\nfunc F() {}\n"})
	if got := mustOK(t, res); got != "created a/b/new.go (3 lines)" {
		t.Errorf("content: %q", got)
	}
	if got := readFile(t, filepath.Join(ws.Root, "a/b/new.go")); got != "package b\n\nfunc F() {}\n" {
		t.Errorf("file: %q", got)
	}
	wantDiff := "--- a/a/b/new.go\n+++ b/a/b/new.go\n@@ -0,0 +1,3 @@\n+package b\n+\n+func F() {}\n"
	if res.Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant\n%s", res.Diff, wantDiff)
	}
	if !slices.Equal(res.Changed, []string{"a/b/new.go"}) || res.Summary != "+3 -0" {
		t.Errorf("Changed %q, Summary %q", res.Changed, res.Summary)
	}
	if fi, _ := os.Stat(filepath.Join(ws.Root, "a/b/new.go")); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", fi.Mode().Perm())
	}
}

func TestWriteOverwritesKeepingMode(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	path := filepath.Join(ws.Root, "run.sh")
	writeFiles(t, ws.Root, map[string]string{"run.sh": "#!/bin/sh\necho one\necho two\n"})
	if err := os.Chmod(path, 0o750); err != nil {
		t.Fatal(err)
	}
	readPaths(t, ws, "run.sh")
	res := call(t, builtin(t, ws, "write"), map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho one\necho 2\necho three\n"})
	if got := mustOK(t, res); got != "wrote run.sh (4 lines, +2 -1)" {
		t.Errorf("content: %q", got)
	}
	wantDiff := "--- a/run.sh\n+++ b/run.sh\n@@ -1,3 +1,4 @@\n #!/bin/sh\n echo one\n-echo two\n+echo 2\n+echo three\n"
	if res.Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant\n%s", res.Diff, wantDiff)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o750 {
		t.Fatalf("mode after write: %v (%v)", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(ws.Root)
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
	res = call(t, builtin(t, ws, "write"), map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho one\necho 2\necho three\n"})
	if got := mustOK(t, res); got != "run.sh unchanged (same content)" || res.Diff != "" || res.Changed != nil {
		t.Errorf("unchanged: %q, diff %q, changed %q", got, res.Diff, res.Changed)
	}
}

func TestWriteNoFinalNewlineDiff(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"f.txt": "a\nb"})
	readPaths(t, ws, "f.txt")
	res := call(t, builtin(t, ws, "write"), map[string]any{"path": "f.txt", "content": "a\nb\n"})
	mustOK(t, res)
	if !strings.Contains(res.Diff, "-b\n\\ No newline at end of file\n+b\n") {
		t.Errorf("diff:\n%s", res.Diff)
	}
}

func TestWriteFailures(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"dir/x": "", "file": ""})
	write := builtin(t, ws, "write")
	for path, want := range map[string]string{
		"dir":        "dir is a directory",
		"file/child": "not a directory: a parent of file/child is a file",
	} {
		if msg := failure(t, call(t, write, map[string]any{"path": path, "content": "x"})); !strings.HasPrefix(msg, want) {
			t.Errorf("%s: %q", path, msg)
		}
	}
}

func TestWriteKeepsBOMAndCRLF(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"w.txt": "\ufeffa\r\nb\r\n", "lf.txt": "a\nb\n", "mixed.txt": "a\r\nb\r\n"})
	readPaths(t, ws, "w.txt", "lf.txt", "mixed.txt")
	write := builtin(t, ws, "write")
	res := call(t, write, map[string]any{"path": "w.txt", "content": "a\nc\n"})
	if got := mustOK(t, res); got != "wrote w.txt (2 lines, +1 -1); kept the file's CRLF line endings and the UTF-8 BOM" {
		t.Errorf("content %q", got)
	}
	mustOK(t, call(t, write, map[string]any{"path": "lf.txt", "content": "x\ny\n"}))
	// Content that has CRs of its own is written as given.
	mustOK(t, call(t, write, map[string]any{"path": "mixed.txt", "content": "x\r\ny\n"}))
	for path, want := range map[string]string{"w.txt": "\ufeffa\r\nc\r\n", "lf.txt": "x\ny\n", "mixed.txt": "x\r\ny\n"} {
		if got := readFile(t, filepath.Join(ws.Root, path)); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}
