package undo

import (
	"context"
	"path/filepath"
	"slices"
	"sort"

	"github.com/coder-agent/coder/internal/session"
)

// /rewind puts the files back as they were before an earlier turn: for
// each path any turn since changed, the state the first of those turns
// found it in — which is what restoring the turns' snapshots newest first
// would leave, bash changes included. A file someone changed since coder
// last did (its state now, or between two turns, is not the state coder
// left it in) is named, and left unless the person says to overwrite it.

// AfterStore keeps the state each path was left in when a turn ended;
// *session.Store is one.
type AfterStore interface {
	SaveUndoAfter(ctx context.Context, sessionID string, turn int, states map[string]string) error
	LoadUndoAfter(ctx context.Context, sessionID string, turn int) (map[string]string, error)
}

// recordAfter keeps the states a turn left its paths in.
func (r *Recorder) recordAfter(ctx context.Context, sessionID string, t *Turn) error {
	as, ok := r.store.(AfterStore)
	if !ok || t == nil {
		return nil
	}
	paths := t.Paths()
	if len(paths) == 0 {
		return nil
	}
	states := make(map[string]string, len(paths))
	for _, p := range paths {
		states[p] = StateOf(p)
	}
	return as.SaveUndoAfter(ctx, sessionID, t.turn, states)
}

// RewindPlan is what a rewind of the files to before a turn would do.
type RewindPlan struct {
	// Turn is the turn rewound to (the first one undone).
	Turn int
	// Paths are the workspace-relative paths it would restore.
	Paths []string
	// Changed are those someone changed since coder last did: left
	// unless overwritten.
	Changed []string
	// Incomplete: snapshots are kept for the last KeepTurns turns only,
	// and some of those since Turn may be gone.
	Incomplete bool

	entries   []session.UndoEntry
	changed   map[string]bool // by absolute path
	turns     []int           // the snapshots it consumes
	sessionID string
}

// PlanRewind works out the rewind of the files to before turn from.
func PlanRewind(ctx context.Context, store Store, sessionID, workspace string, from int) (*RewindPlan, error) {
	all, err := store.UndoTurns(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	p := &RewindPlan{Turn: from, changed: map[string]bool{}, sessionID: sessionID}
	for _, t := range all {
		if t >= from {
			p.turns = append(p.turns, t)
		}
	}
	sort.Ints(p.turns)
	p.Incomplete = len(all) >= KeepTurns && (len(p.turns) == 0 || p.turns[0] > from)
	type seen struct {
		entry session.UndoEntry
		after string // the state the latest turn touching it left
	}
	byPath := map[string]*seen{}
	var order []string
	as, _ := store.(AfterStore)
	for _, t := range p.turns {
		entries, err := store.LoadUndo(ctx, sessionID, t)
		if err != nil {
			return nil, err
		}
		var after map[string]string
		if as != nil {
			if after, err = as.LoadUndoAfter(ctx, sessionID, t); err != nil {
				return nil, err
			}
		}
		for _, e := range entries {
			s, ok := byPath[e.Path]
			if !ok {
				byPath[e.Path] = &seen{entry: e, after: after[e.Path]}
				order = append(order, e.Path)
				continue
			}
			// Between two turns that changed it, someone else did.
			if b := entryState(e); s.after != "" && b != "" && b != s.after {
				p.changed[e.Path] = true
			}
			s.after = after[e.Path]
		}
	}
	for _, path := range order {
		s := byPath[path]
		now := StateOf(path)
		switch {
		case now != "" && now == entryState(s.entry):
			// Already as it was: nothing to overwrite.
			delete(p.changed, path)
		case s.after != "" && now != s.after:
			p.changed[path] = true
		}
		p.entries = append(p.entries, s.entry)
		rel := relPath(workspace, path, s.entry)
		p.Paths = append(p.Paths, rel)
		if p.changed[path] {
			p.Changed = append(p.Changed, rel)
		}
	}
	slices.Sort(p.Paths)
	slices.Sort(p.Changed)
	return p, nil
}

func relPath(workspace, abs string, e session.UndoEntry) string {
	rel, err := filepath.Rel(workspace, abs)
	if err != nil || !within(workspace, abs) {
		rel = abs
	}
	if e.Mode.IsDir() {
		rel += "/"
	}
	return filepath.ToSlash(rel)
}

// ApplyRewind restores what the plan names, the changed files only when
// overwrite is set (left names those it did not touch), and drops the
// snapshots it consumed: those turns are undone, and /undo must not walk
// back into them.
func ApplyRewind(ctx context.Context, store Store, p *RewindPlan, workspace string, overwrite bool) (restored, left, problems []string, err error) {
	var todo []session.UndoEntry
	for _, e := range p.entries {
		if p.changed[e.Path] && !overwrite {
			continue
		}
		todo = append(todo, e)
	}
	if !overwrite {
		left = p.Changed
	}
	restored, problems, err = Restore(ctx, todo, workspace)
	if err != nil {
		return restored, left, problems, err
	}
	for _, t := range p.turns {
		if err := store.DropUndo(ctx, p.sessionID, t); err != nil {
			return restored, left, problems, err
		}
	}
	return restored, left, problems, nil
}
