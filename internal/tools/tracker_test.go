package tools

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestGuardReadThenEdit(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	edit := builtin(t, ws, "edit")
	msg := failure(t, call(t, edit, map[string]any{"path": "a.txt", "old_string": "two", "new_string": "2"}))
	if msg != "read a.txt before editing it (use the read tool)" {
		t.Fatalf("unread: %q", msg)
	}
	// A window of the file counts as reading it.
	mustOK(t, call(t, builtin(t, ws, "read"), map[string]any{"path": "a.txt", "offset": 3, "limit": 1}))
	mustOK(t, call(t, edit, map[string]any{"path": "a.txt", "old_string": "two", "new_string": "2"}))
	// The tool's own write counts as seen: consecutive edits work.
	mustOK(t, call(t, edit, map[string]any{"path": "a.txt", "old_string": "three", "new_string": "3"}))
	if got := readFile(t, filepath.Join(ws.Root, "a.txt")); got != "one\n2\n3\n" {
		t.Fatalf("file %q", got)
	}
}

func TestGuardChangedOnDisk(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	path := filepath.Join(ws.Root, "a.txt")
	writeFiles(t, ws.Root, map[string]string{"a.txt": "one\n"})
	readPaths(t, ws, "a.txt")
	// Touched but identical: still what the model saw.
	later := time.Now().Add(3 * time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	edit := builtin(t, ws, "edit")
	mustOK(t, call(t, edit, map[string]any{"path": "a.txt", "old_string": "one", "new_string": "1"}))
	// Same size, new content: someone else changed it.
	if err := os.WriteFile(path, []byte("uno\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"edit", "write"} {
		args := map[string]any{"path": "a.txt", "old_string": "uno", "new_string": "1", "content": "x\n"}
		if msg := failure(t, call(t, builtin(t, ws, name), args)); msg != "a.txt changed on disk since you read it; read it again before editing" {
			t.Fatalf("%s stale: %q", name, msg)
		}
	}
	readPaths(t, ws, "a.txt")
	mustOK(t, call(t, edit, map[string]any{"path": "a.txt", "old_string": "uno", "new_string": "1"}))
}

func TestGuardWrite(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"old.txt": "keep me\n", "empty.txt": ""})
	write := builtin(t, ws, "write")
	msg := failure(t, call(t, write, map[string]any{"path": "old.txt", "content": "x\n"}))
	if !strings.HasPrefix(msg, "read old.txt before") {
		t.Fatalf("overwrite unread: %q", msg)
	}
	// New files and empty ones hold nothing the model could lose.
	mustOK(t, call(t, write, map[string]any{"path": "new.txt", "content": "a\n"}))
	mustOK(t, call(t, write, map[string]any{"path": "empty.txt", "content": "b\n"}))
	// Written by the model, so edited without a read.
	mustOK(t, call(t, builtin(t, ws, "edit"), map[string]any{"path": "new.txt", "old_string": "a", "new_string": "c"}))
	if got := readFile(t, filepath.Join(ws.Root, "new.txt")); got != "c\n" {
		t.Fatalf("new.txt %q", got)
	}
}

func TestGuardEachToolSetSharesOneTracker(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"a.txt": "a\n"})
	find := func(ts []Tool, name string) Tool {
		for _, tool := range ts {
			if tool.Name() == name {
				return tool
			}
		}
		t.Fatalf("no %s", name)
		return nil
	}
	set1, set2 := Builtins(Env{Workspace: ws}), Builtins(Env{Workspace: ws})
	mustOK(t, call(t, find(set1, "read"), map[string]any{"path": "a.txt"}))
	failure(t, call(t, find(set2, "edit"), map[string]any{"path": "a.txt", "old_string": "a", "new_string": "b"}))
	mustOK(t, call(t, find(set1, "edit"), map[string]any{"path": "a.txt", "old_string": "a", "new_string": "b"}))

	shared := NewReadTracker()
	set3, set4 := Builtins(Env{Workspace: ws, Tracker: shared}), Builtins(Env{Workspace: ws, Tracker: shared})
	mustOK(t, call(t, find(set3, "read"), map[string]any{"path": "a.txt"}))
	mustOK(t, call(t, find(set4, "edit"), map[string]any{"path": "a.txt", "old_string": "b", "new_string": "c"}))
}

func TestReadTrackerConcurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr := NewReadTracker()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			abs := filepath.Join(dir, fmt.Sprint(i%3))
			data := []byte(fmt.Sprint(i))
			for range 100 {
				tr.Record(abs, data)
				_ = tr.Check(abs, "x", string(data))
				tr.Forget(abs)
			}
		}()
	}
	wg.Wait()
}

func TestBeforeChangeHook(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	var mu sync.Mutex
	var seen []string
	snap := map[string]string{}
	failOn := ""
	tr := NewReadTracker()
	tools := Builtins(Env{Workspace: ws, Tracker: tr, BeforeChange: func(abs, _ string, _ fs.FileInfo) error {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, filepath.Base(abs))
		b, _ := os.ReadFile(abs)
		snap[filepath.Base(abs)] = string(b)
		if filepath.Base(abs) == failOn {
			return fmt.Errorf("disk full")
		}
		return nil
	}})
	get := func(name string) Tool {
		i := slices.IndexFunc(tools, func(tool Tool) bool { return tool.Name() == name })
		return tools[i]
	}
	mustOK(t, call(t, get("read"), map[string]any{"path": "a.txt"}))
	mustOK(t, call(t, get("read"), map[string]any{"path": "b.txt"}))
	mustOK(t, call(t, get("edit"), map[string]any{"path": "a.txt", "old_string": "a", "new_string": "A"}))
	if !slices.Equal(seen, []string{"a.txt"}) || snap["a.txt"] != "a\n" {
		t.Fatalf("edit hook: %v %q", seen, snap)
	}
	// A refused call never reaches the hook.
	failure(t, call(t, get("edit"), map[string]any{"path": "a.txt", "old_string": "zzz", "new_string": "y"}))
	if len(seen) != 1 {
		t.Fatalf("hook called for a refused edit: %v", seen)
	}
	seen = nil
	patch := "*** Begin Patch\n*** Update File: b.txt\n*** Move to: c.txt\n@@\n-b\n+B\n*** Add File: d.txt\n+d\n*** End Patch"
	mustOK(t, call(t, get("patch"), map[string]any{"patch": patch}))
	if !slices.Equal(seen, []string{"b.txt", "c.txt", "d.txt"}) || snap["b.txt"] != "b\n" || snap["c.txt"] != "" {
		t.Fatalf("patch hook: %v %q", seen, snap)
	}
	failOn = "a.txt"
	msg := failure(t, call(t, get("write"), map[string]any{"path": "a.txt", "content": "new\n"}))
	if !strings.Contains(msg, "disk full") || readFile(t, filepath.Join(ws.Root, "a.txt")) != "A\n" {
		t.Fatalf("hook error: %q", msg)
	}
}
