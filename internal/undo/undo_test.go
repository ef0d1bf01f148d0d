package undo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCaptureRestoreAfterRestart(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{
		"crlf.txt":  "line one\r\nline two\r\n",
		"bin.dat":   "\x00\x01\xff\xfe binary\x00",
		"run.sh":    "#!/bin/sh\necho hi\n",
		"sub/gone":  "to be deleted\n",
		"keep.txt":  "untouched\n",
		"linked.md": "target\n",
	})
	must(t, os.Chmod(filepath.Join(ws, "run.sh"), 0o755))
	must(t, os.Chmod(filepath.Join(ws, "sub/gone"), 0o640))
	must(t, os.Symlink("linked.md", filepath.Join(ws, "link")))
	want := tree(t, ws)

	st, id := openStore(t, ws)
	turn := NewTurn(st, id, 1, ws)
	edit := func(rel string, change func(abs string) error) {
		t.Helper()
		abs := filepath.Join(ws, rel)
		must(t, turn.Capture(abs, "", nil))
		must(t, change(abs))
	}
	write := func(data string) func(string) error {
		return func(abs string) error { return os.WriteFile(abs, []byte(data), 0o644) }
	}
	edit("crlf.txt", write("line one\nchanged\n"))
	edit("crlf.txt", write("second edit, not captured\n")) // first capture wins
	edit("bin.dat", write("text now"))
	edit("run.sh", func(abs string) error { return os.Chmod(abs, 0o600) })
	edit("sub/gone", os.Remove)
	edit("sub", os.Remove) // the directory too, once empty
	edit("link", func(abs string) error { os.Remove(abs); return os.Symlink("elsewhere", abs) })
	edit("new/deep/file.go", func(abs string) error {
		must(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		return os.WriteFile(abs, []byte("package deep\n"), 0o644)
	})
	wantPaths := []string{"bin.dat", "crlf.txt", "link", "new", "new/deep", "new/deep/file.go", "run.sh", "sub", "sub/gone"}
	for i, p := range wantPaths {
		wantPaths[i] = filepath.Join(ws, p)
	}
	if got := turn.Paths(); !slices.Equal(got, wantPaths) {
		t.Errorf("Paths() = %v\nwant %v", got, wantPaths)
	}

	st = reopen(t, st, ws)
	restored := restoreTurn(t, st, id, 1, ws)
	sameTree(t, tree(t, ws), want)
	wantRestored := []string{"new/deep/file.go", "new/deep/", "new/", "sub/", "bin.dat", "crlf.txt", "link", "run.sh", "sub/gone"}
	if !slices.Equal(restored, wantRestored) {
		t.Errorf("restored = %v\nwant %v", restored, wantRestored)
	}
}

func TestCaptureTooLarge(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	big := filepath.Join(ws, "big.bin")
	must(t, os.WriteFile(big, bytes.Repeat([]byte{'x'}, MaxCaptureSize+1), 0o644))
	st, id := openStore(t, ws)
	turn := NewTurn(st, id, 1, ws)
	if err := turn.Capture(big, "", nil); err != nil {
		t.Fatalf("Capture of a large file = %v; the edit must not be blocked", err)
	}
	must(t, os.WriteFile(big, []byte("small"), 0o644))
	es, err := st.LoadUndo(context.Background(), id, 1)
	must(t, err)
	restored, problems, err := Restore(context.Background(), es, ws)
	must(t, err)
	if len(restored) != 0 || len(problems) != 1 || !strings.Contains(problems[0], "big.bin: not restored: too large") {
		t.Errorf("Restore = %v, %v; want one too-large problem", restored, problems)
	}
	if data, _ := os.ReadFile(big); string(data) != "small" {
		t.Error("a file that was not captured was changed by Restore")
	}
}

func TestCaptureStoreFailure(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	st, id := openStore(t, ws)
	turn := NewTurn(st, id, 1, ws)
	st.Close()
	if err := turn.Capture(filepath.Join(ws, "a"), "", nil); err == nil {
		t.Error("Capture with a closed store succeeded; the tool must not write unrecorded")
	}
	if err := turn.Capture("relative/path", "", nil); err == nil {
		t.Error("Capture of a relative path succeeded")
	}
}

func TestRestoreKeepsCreatedDirWithUncapturedFiles(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	st, id := openStore(t, ws)
	turn := NewTurn(st, id, 1, ws)
	abs := filepath.Join(ws, "gen", "a.go")
	must(t, turn.Capture(abs, "", nil))
	writeTree(t, ws, map[string]string{"gen/a.go": "x", "gen/extra.o": "built"})
	es, err := st.LoadUndo(context.Background(), id, 1)
	must(t, err)
	restored, problems, err := Restore(context.Background(), es, ws)
	must(t, err)
	if !slices.Equal(restored, []string{"gen/a.go"}) || len(problems) != 1 || !strings.HasPrefix(problems[0], "gen/: ") {
		t.Errorf("Restore = %v, %v", restored, problems)
	}
	sameTree(t, tree(t, ws), map[string]string{"gen": "drwxr-xr-x", "gen/extra.o": "-rw-r--r-- built"})
}

// A directory swapped for a symlink since the capture (a model's planted
// link to home) cannot redirect a restore: the outside file is untouched and
// the path is reported; a normal path in the same turn is restored.
func TestRestoreDoesNotFollowAPlantedSymlinkOutside(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	writeTree(t, ws, map[string]string{"build/.bashrc": "workspace copy\n", "main.go": "package main\n"})
	writeTree(t, home, map[string]string{".bashrc": "the person's real rc\n"})
	st, id := openStore(t, ws)
	turn := NewTurn(st, id, 1, ws)
	must(t, turn.Capture(filepath.Join(ws, "build/.bashrc"), "", nil))
	must(t, turn.Capture(filepath.Join(ws, "main.go"), "", nil))
	must(t, os.WriteFile(filepath.Join(ws, "main.go"), []byte("package changed\n"), 0o644))
	// The model replaces build/ with a link to the home directory.
	must(t, os.RemoveAll(filepath.Join(ws, "build")))
	must(t, os.Symlink(home, filepath.Join(ws, "build")))

	entries, err := st.LoadUndo(context.Background(), id, 1)
	must(t, err)
	restored, problems, err := Restore(context.Background(), entries, ws)
	must(t, err)
	if got, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(got) != "the person's real rc\n" {
		t.Fatalf("the restore wrote through the planted link: %q", got)
	}
	if len(problems) != 1 || !strings.HasPrefix(problems[0], "build/.bashrc") {
		t.Errorf("problems %q", problems)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "main.go")); string(got) != "package main\n" || !slices.Contains(restored, "main.go") {
		t.Errorf("main.go not restored: %q, restored %v", got, restored)
	}
}
