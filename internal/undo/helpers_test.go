package undo

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/session"
)

// openStore opens the real store in ws/.coder, as coder does, so scans also
// show that the database is never captured. It returns the store and the id
// of a stored session.
func openStore(t testing.TB, ws string) (*session.Store, string) {
	t.Helper()
	st, err := session.Open(session.StoreOptions{Dir: filepath.Join(ws, ".coder"), Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := session.New(time.Now(), "m", "build")
	if err := st.Checkpoint(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return st, s.ID
}

// reopen closes st and opens the database again, as after a restart.
func reopen(t testing.TB, st *session.Store, ws string) *session.Store {
	t.Helper()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := session.Open(session.StoreOptions{Dir: filepath.Join(ws, ".coder"), Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	return st2
}

// writeTree creates files: name → content; a name ending in "/" is a directory.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tree describes every entry below root but .coder: type, mode and content.
func tree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch rel {
		case ".":
			return nil
		case ".coder":
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fi.Mode().String()
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += " " + string(data)
		}
		out[filepath.ToSlash(rel)] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t testing.TB, got, want map[string]string) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: missing, want %q", k, w)
		} else if g != w {
			t.Errorf("%s: %q, want %q", k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected %q", k, g)
		}
	}
}

func runBash(t testing.TB, dir, script string) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bash -c %q: %v\n%s", script, err, out)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// restoreTurn loads a turn's snapshot and restores it, failing on problems.
func restoreTurn(t testing.TB, st *session.Store, id string, turn int, ws string) []string {
	t.Helper()
	es, err := st.LoadUndo(context.Background(), id, turn)
	must(t, err)
	restored, problems, err := Restore(context.Background(), es, ws)
	must(t, err)
	if len(problems) > 0 {
		t.Errorf("Restore problems: %v", problems)
	}
	return restored
}

func fileCount(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("pkg%03d/file%05d.go", i/100, i)] = fmt.Sprintf("package p%d\n\n// %s\nfunc F%d() {}\n", i/100, strings.Repeat("x", 120), i)
	}
	return files
}

// ageTree sets every mtime under root an hour back: past the racy window,
// so a file is trusted by its stat (or, with inotify, its directory's
// silence) and not compared by content.
func ageTree(t testing.TB, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	must(t, filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	}))
}
