package undo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"

	"github.com/coder-agent/coder/internal/session"
)

// /rewind puts the files back as they were before an earlier turn: for
// each path any turn since changed, the state the first of those turns
// found it in — which is what restoring the turns' snapshots newest first
// would leave, bash changes included. A file someone changed since coder
// last did (its state now, between two turns or between a turn's calls is
// not the state coder's call left it in: UndoEntry.After) is named, and
// left unless the person says to overwrite it.

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
		first session.UndoEntry // the oldest state: what the rewind restores
		after string            // the state the latest turn touching it left
	}
	byPath := map[string]*seen{}
	var order []string
	for _, t := range p.turns {
		entries, err := store.LoadUndo(ctx, sessionID, t)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.After == outside { // changed between that turn's calls
				p.changed[e.Path] = true
			}
			s, ok := byPath[e.Path]
			if !ok {
				byPath[e.Path] = &seen{first: e, after: e.After}
				order = append(order, e.Path)
				continue
			}
			// Between two turns that changed it, someone else did.
			if b := entryState(e); s.after != "" && s.after != outside && b != "" && b != s.after {
				p.changed[e.Path] = true
			}
			s.after = e.After
		}
	}
	for _, path := range order {
		s := byPath[path]
		now := fingerprint(path)
		switch {
		case now == entryState(s.first):
			// Already as it was: nothing to overwrite.
			delete(p.changed, path)
		case s.after != "" && s.after != outside && now != s.after:
			p.changed[path] = true
		}
		p.entries = append(p.entries, s.first)
		rel := relPath(workspace, s.first)
		p.Paths = append(p.Paths, rel)
		if p.changed[path] {
			p.Changed = append(p.Changed, rel)
		}
	}
	slices.Sort(p.Paths)
	slices.Sort(p.Changed)
	return p, nil
}

// entryState is the state a snapshot entry recorded, as fingerprint
// would tell it; "" when the snapshot did not capture the content.
func entryState(e session.UndoEntry) string {
	switch {
	case !e.Existed:
		return "absent"
	case e.Skipped != "":
		return ""
	case e.Mode.IsDir():
		return "dir"
	case e.Mode&fs.ModeSymlink != 0:
		return "link:" + string(e.Content)
	case len(e.Content) > maxFingerprint:
		return "" // fingerprint tells such a file by its stat
	}
	sum := sha256.Sum256(e.Content)
	return fileFingerprint(e.Mode&keptMode, hex.EncodeToString(sum[:]))
}

func fileFingerprint(mode fs.FileMode, sum string) string {
	return fmt.Sprintf("file:%o:%s", mode, sum)
}

// relPath names e's path relative to workspace, a directory with a
// trailing slash.
func relPath(workspace string, e session.UndoEntry) string {
	rel, err := filepath.Rel(workspace, e.Path)
	if err != nil {
		rel = e.Path
	}
	if e.Mode.IsDir() {
		rel += "/"
	}
	return rel
}

// ApplyRewind restores what the plan names, the changed files only when
// overwrite is set (left names those it did not touch), and drops the
// snapshots it consumed: those turns are undone, and /undo must not walk
// back into them.
func ApplyRewind(ctx context.Context, store Store, p *RewindPlan, workspace string, overwrite bool) (restored, left, problems []string, err error) {
	todo := p.entries
	if !overwrite {
		todo, left = leaveSome(p.entries, workspace, func(e session.UndoEntry) bool { return p.changed[e.Path] })
		slices.Sort(left)
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
