package session

import (
	"context"
	"io/fs"
	"reflect"
	"slices"
	"testing"
)

// undoSession stores an empty session, as the orchestrator does before the
// first tool of a turn runs (undo rows reference the session row).
func undoSession(t *testing.T, st *Store) string {
	t.Helper()
	s := New(t0, "m", "build")
	if err := st.Checkpoint(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func TestUndoRoundTripAndReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := tempDir(t)
	st := openStore(t, dir, "/w", nil)
	id := undoSession(t, st)
	want := []UndoEntry{
		{Path: "/w/a.bin", Existed: true, Mode: 0o755, Content: []byte{0, 1, 2, 0xff, '\r', '\n'}},
		{Path: "/w/big", Existed: true, Mode: 0o644, Skipped: "too large"},
		{Path: "/w/empty", Existed: true, Mode: 0o600, Content: []byte{}},
		{Path: "/w/link", Existed: true, Mode: fs.ModeSymlink | 0o777, Content: []byte("a.bin")},
		{Path: "/w/new", Existed: false},
		{Path: "/w/newdir", Mode: fs.ModeDir},
	}
	for _, e := range want {
		if err := st.SaveUndo(ctx, id, 3, e); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	st = openStore(t, dir, "/w", nil) // a restart: snapshots are in SQLite
	got, err := st.LoadUndo(ctx, id, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LoadUndo after reopen =\n%+v\nwant\n%+v", got, want)
	}
	if es, err := st.LoadUndo(ctx, id, 4); err != nil || len(es) != 0 {
		t.Errorf("LoadUndo of an unknown turn = %v, %v", es, err)
	}
}

func TestUndoFirstCaptureWins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t, tempDir(t), "/w", nil)
	id := undoSession(t, st)
	for _, c := range []string{"first", "second"} {
		if err := st.SaveUndo(ctx, id, 1, UndoEntry{Path: "/w/f", Existed: true, Mode: 0o644, Content: []byte(c)}); err != nil {
			t.Fatal(err)
		}
	}
	// The same path in another turn is another snapshot.
	if err := st.SaveUndo(ctx, id, 2, UndoEntry{Path: "/w/f", Existed: true, Content: []byte("third")}); err != nil {
		t.Fatal(err)
	}
	got, err := st.LoadUndo(ctx, id, 1)
	if err != nil || len(got) != 1 || string(got[0].Content) != "first" {
		t.Errorf("LoadUndo = %+v, %v; want the first capture only", got, err)
	}
}

func TestUndoTurnsDropPrune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t, tempDir(t), "/w", nil)
	id, other := undoSession(t, st), undoSession(t, st)
	for _, turn := range []int{1, 2, 5, 3, 4, 6} {
		for _, p := range []string{"/w/a", "/w/b"} {
			if err := st.SaveUndo(ctx, id, turn, UndoEntry{Path: p}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := st.SaveUndo(ctx, other, 1, UndoEntry{Path: "/w/a"}); err != nil {
		t.Fatal(err)
	}
	check := func(want ...int) {
		t.Helper()
		got, err := st.UndoTurns(ctx, id)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("UndoTurns = %v, %v; want %v", got, err, want)
		}
	}
	check(6, 5, 4, 3, 2, 1)
	if err := st.DropUndo(ctx, id, 6); err != nil {
		t.Fatal(err)
	}
	check(5, 4, 3, 2, 1)
	if err := st.PruneUndo(ctx, id, 3); err != nil {
		t.Fatal(err)
	}
	check(5, 4, 3)
	if err := st.PruneUndo(ctx, id, 0); err != nil {
		t.Fatal(err)
	}
	check()
	if got, err := st.UndoTurns(ctx, other); err != nil || !slices.Equal(got, []int{1}) {
		t.Errorf("other session's turns = %v, %v; pruning must not touch them", got, err)
	}
}

func TestUndoErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openStore(t, tempDir(t), "/w", nil)
	if err := st.SaveUndo(ctx, "no-such-session", 1, UndoEntry{Path: "/w/a"}); err == nil {
		t.Error("SaveUndo for a session that was never stored succeeded")
	}
	if err := st.SaveUndo(ctx, "../x", 1, UndoEntry{Path: "/w/a"}); err == nil {
		t.Error("SaveUndo accepted an invalid session id")
	}
	st.Close()
	if _, err := st.UndoTurns(ctx, "x"); err == nil {
		t.Error("UndoTurns on a closed store succeeded")
	}
}
