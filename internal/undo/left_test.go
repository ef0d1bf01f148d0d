package undo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// /undo reverts what coder's calls changed and leaves what changed outside
// them: a file the person edited between two of coder's calls, or after
// the turn, keeps the person's work and is named; coder's other changes
// are undone.
func TestUndoLeavesWhatChangedOutsideCodersCalls(t *testing.T) {
	ws := t.TempDir()
	st, id := openStore(t, ws)
	ctx := context.Background()
	writeTree(t, ws, map[string]string{"a.txt": "one\n", "e.txt": "e\n", "plain.txt": "p\n"})
	r := NewRecorder(st, ws)
	if err := r.BeginTurn(ctx, id); err != nil {
		t.Fatal(err)
	}
	abs := func(name string) string { return filepath.Join(ws, name) }
	// call writes name with content, as a file tool does.
	call := func(bash bool, name, content string) {
		t.Helper()
		after, err := r.AroundCall(ctx, bash)
		if err != nil {
			t.Fatal(err)
		}
		if !bash {
			if err := r.Capture(abs(name), "", nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(abs(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := after(ctx); err != nil {
			t.Fatal(err)
		}
	}
	call(false, "a.txt", "two\n")
	call(true, "e.txt", "E\n")
	call(false, "plain.txt", "P\n")
	call(false, "new.txt", "coder's\n")
	writeTree(t, ws, map[string]string{"a.txt": "two\nperson\n"}) // between calls
	call(false, "a.txt", "three\nperson\n")                       // coder again, after reading it
	if err := r.EndTurn(ctx); err != nil {
		t.Fatal(err)
	}
	writeTree(t, ws, map[string]string{"e.txt": "E\nmine\n"}) // after the turn

	u, err := UndoLatest(ctx, st, id, ws)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(u.Left, []string{"a.txt", "e.txt"}) || !slices.Equal(u.Restored, []string{"new.txt", "plain.txt"}) || len(u.Problems) != 0 {
		t.Fatalf("%+v", u)
	}
	for name, want := range map[string]string{"a.txt": "three\nperson\n", "e.txt": "E\nmine\n", "plain.txt": "p\n"} {
		if b, _ := os.ReadFile(abs(name)); string(b) != want {
			t.Errorf("%s = %q, want %q", name, b, want)
		}
	}
	if _, err := os.Stat(abs("new.txt")); !os.IsNotExist(err) {
		t.Errorf("new.txt survived: %v", err)
	}
}
