package undo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// rewindWorld runs three turns through a Recorder: turn 1 writes a.txt,
// turn 2 rewrites it and creates b.txt, turn 3 changes c.txt with bash.
// It returns the tree before each turn.
func rewindWorld(t *testing.T) (ws string, rec *Recorder, id string, before []map[string]string) {
	t.Helper()
	ctx := context.Background()
	ws = t.TempDir()
	writeTree(t, ws, map[string]string{"a.txt": "a0\n", "c.txt": "c0\n"})
	st, id := openStore(t, ws)
	rec = NewRecorder(st, ws)
	write := func(rel, data string) { callWrite(t, rec, filepath.Join(ws, rel), data) }
	turns := []func(){
		func() { write("a.txt", "a1\n") },
		func() { write("a.txt", "a2\n"); write("b.txt", "b2\n") },
		func() {
			after, err := rec.AroundCall(ctx, true)
			must(t, err)
			runBash(t, ws, "echo c3 > c.txt")
			_, err = after(ctx)
			must(t, err)
		},
	}
	for i, turn := range turns {
		before = append(before, tree(t, ws))
		n, err := rec.BeginTurnAbove(ctx, id, i)
		must(t, err)
		if n != i+1 {
			t.Fatalf("turn %d numbered %d", i+1, n)
		}
		turn()
		must(t, rec.EndTurn(ctx))
	}
	return ws, rec, id, before
}

// TestRewindRestoresEveryTurnSince: rewinding to before turn 2 puts back
// what turns 2 and 3 changed, bash's change included, and drops their
// snapshots; turn 1's stays for /undo.
func TestRewindRestoresEveryTurnSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws, rec, id, before := rewindWorld(t)
	p, err := PlanRewind(ctx, rec.store, id, ws, 2)
	must(t, err)
	if !slices.Equal(p.Paths, []string{"a.txt", "b.txt", "c.txt"}) || p.Changed != nil || p.Incomplete {
		t.Fatalf("plan %+v", p)
	}
	restored, left, problems, err := ApplyRewind(ctx, rec.store, p, ws, false)
	must(t, err)
	if len(restored) != 3 || left != nil || problems != nil {
		t.Fatalf("restored %v left %v problems %v", restored, left, problems)
	}
	sameTree(t, tree(t, ws), before[1])
	turns, err := rec.store.UndoTurns(ctx, id)
	must(t, err)
	if !slices.Equal(turns, []int{1}) {
		t.Fatalf("snapshots left: %v", turns)
	}
}

// TestRewindLeavesWhatAPersonChanged: a file changed after coder's last
// turn, and one changed between two turns, are named and left; the rest
// is restored. With overwrite they are restored too. A file already as
// it was is no conflict.
func TestRewindLeavesWhatAPersonChanged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, overwrite := range []bool{false, true} {
		ws, rec, id, before := rewindWorld(t)
		writeTree(t, ws, map[string]string{"c.txt": "edited by hand\n"})
		p, err := PlanRewind(ctx, rec.store, id, ws, 1)
		must(t, err)
		if !slices.Equal(p.Changed, []string{"c.txt"}) {
			t.Fatalf("changed %v", p.Changed)
		}
		_, left, _, err := ApplyRewind(ctx, rec.store, p, ws, overwrite)
		must(t, err)
		want := before[0]
		if !overwrite {
			want["c.txt"] = "-rw-r--r-- edited by hand\n"
			if !slices.Equal(left, []string{"c.txt"}) {
				t.Fatalf("left %v", left)
			}
		}
		sameTree(t, tree(t, ws), want)
	}

	// Between turns: a.txt edited by hand after turn 1, before turn 2.
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"a.txt": "a0\n"})
	st, id := openStore(t, ws)
	rec := NewRecorder(st, ws)
	for i, data := range []string{"a1\n", "a2\n"} {
		_, err := rec.BeginTurnAbove(ctx, id, i)
		must(t, err)
		callWrite(t, rec, filepath.Join(ws, "a.txt"), data)
		must(t, rec.EndTurn(ctx))
		if i == 0 {
			writeTree(t, ws, map[string]string{"a.txt": "by hand\n"})
		}
	}
	p, err := PlanRewind(ctx, st, id, ws, 1)
	must(t, err)
	if !slices.Equal(p.Changed, []string{"a.txt"}) {
		t.Fatalf("a change between turns was not seen: %v", p.Changed)
	}
	// Put by hand what the rewind would: it is nothing to overwrite.
	writeTree(t, ws, map[string]string{"a.txt": "a0\n"})
	p, err = PlanRewind(ctx, st, id, ws, 1)
	must(t, err)
	if p.Changed != nil {
		t.Fatalf("a file already as it was is a conflict: %v", p.Changed)
	}
}

// TestRewindLeavesAChangeBetweenCalls: a file the person changed between
// two of coder's calls in a turn is theirs from then on: named and left.
func TestRewindLeavesAChangeBetweenCalls(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"a.txt": "a0\n", "b.txt": "b0\n"})
	st, id := openStore(t, ws)
	rec := NewRecorder(st, ws)
	_, err := rec.BeginTurnAbove(ctx, id, 0)
	must(t, err)
	callWrite(t, rec, filepath.Join(ws, "a.txt"), "a1\n")
	writeTree(t, ws, map[string]string{"a.txt": "by hand\n"})
	callWrite(t, rec, filepath.Join(ws, "b.txt"), "b1\n") // its start sees a.txt changed
	must(t, rec.EndTurn(ctx))
	p, err := PlanRewind(ctx, st, id, ws, 1)
	must(t, err)
	if !slices.Equal(p.Changed, []string{"a.txt"}) {
		t.Fatalf("changed %v", p.Changed)
	}
	restored, left, _, err := ApplyRewind(ctx, st, p, ws, false)
	must(t, err)
	if !slices.Equal(restored, []string{"b.txt"}) || !slices.Equal(left, []string{"a.txt"}) {
		t.Fatalf("restored %v left %v", restored, left)
	}
	if got := tree(t, ws); got["a.txt"] != "-rw-r--r-- by hand\n" || got["b.txt"] != "-rw-r--r-- b0\n" {
		t.Fatalf("tree %v", got)
	}
}

// TestTurnNumbersOnlyGrow: a turn is numbered above the history's newest
// even when the stored snapshots would start lower (turns that changed
// nothing store none), across a restart.
func TestTurnNumbersOnlyGrow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	st, id := openStore(t, ws)
	rec := NewRecorder(st, ws)
	n, err := rec.BeginTurnAbove(ctx, id, 7)
	must(t, err)
	must(t, rec.EndTurn(ctx))
	if n != 8 {
		t.Fatalf("numbered %d above 7", n)
	}
	st = reopen(t, st, ws)
	rec = NewRecorder(st, ws)
	if n, err = rec.BeginTurnAbove(ctx, id, 8); err != nil || n != 9 {
		t.Fatalf("after a restart: %d %v", n, err)
	}
}

// callWrite is one write tool call: captured before, its state recorded after.
func callWrite(t *testing.T, rec *Recorder, abs, data string) {
	t.Helper()
	ctx := context.Background()
	after, err := rec.AroundCall(ctx, false)
	must(t, err)
	must(t, rec.Capture(abs, "", nil))
	must(t, os.WriteFile(abs, []byte(data), 0o644))
	_, err = after(ctx)
	must(t, err)
}
