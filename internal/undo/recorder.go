package undo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/paths"
	"github.com/coder-agent/coder/internal/session"
)

// KeepTurns is how many turns of snapshots /undo can walk back through.
const KeepTurns = 20

// Store is what the recorder needs from the session store.
type Store interface {
	Saver
	Loader
	PruneUndo(ctx context.Context, sessionID string, keep int) error
	DropUndo(ctx context.Context, sessionID string, turn int) error
}

// Recorder keeps the undo snapshots of a session's turns: file tools call
// Capture before they write (through tools.Env.BeforeChange), and the
// orchestrator brackets each turn and each bash call.
type Recorder struct {
	store     Store
	workspace string
	scanner   *Scanner

	mu      sync.Mutex
	session string
	turn    *Turn
	next    int // the next turn number of this session
	// pending are the paths captured during the call running now, whose
	// state is recorded when it ends. Calls that change files run one at
	// a time.
	pending []string
}

// NewRecorder records into store for the workspace.
func NewRecorder(store Store, workspace string) *Recorder {
	return &Recorder{store: store, workspace: workspace, scanner: NewScanner(workspace, ScannerOptions{})}
}

// SetBusy tells the recorder how to know whether processes may be running
// outside coder's calls (background tasks): bash changes are then found
// by a walk of the workspace, not by inotify's word (notify_linux.go).
// Call it before the first turn.
func (r *Recorder) SetBusy(busy func() bool) { r.scanner.opts.Busy = busy }

// BeginTurn starts a turn's snapshot. Turn numbers keep increasing across
// restarts because they continue from the newest stored turn.
func (r *Recorder) BeginTurn(ctx context.Context, sessionID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if sessionID != r.session {
		turns, err := r.store.UndoTurns(ctx, sessionID)
		if err != nil {
			return err
		}
		r.session, r.next = sessionID, 1
		if len(turns) > 0 {
			r.next = turns[0] + 1
		}
	}
	r.turn = NewTurn(r.store, sessionID, r.next, r.workspace)
	r.next++
	return nil
}

// Capture saves a path's content before a tool changes it, from what the
// tool has just read of it when the file is still as read (Turn.Capture).
// Outside a turn (nothing to undo into) it does nothing.
func (r *Recorder) Capture(abs, read string, fi fs.FileInfo) error {
	r.mu.Lock()
	t := r.turn
	if t != nil {
		r.pending = append(r.pending, filepath.Clean(abs))
	}
	r.mu.Unlock()
	if t == nil {
		return nil
	}
	return t.Capture(abs, read, fi)
}

// AroundCall brackets one tool call. Before it, the paths earlier calls
// changed are checked: one no longer as coder left it was changed by
// something else in between, and /undo will leave it (left.go). For bash,
// the workspace is marked too. The returned function, called after the
// call, captures what a command changed and records the state the call
// left each changed path in. notice is non-empty when bash changes could
// not be captured.
func (r *Recorder) AroundCall(ctx context.Context, bash bool) (after func(context.Context) (notice string, err error), err error) {
	r.mu.Lock()
	t := r.turn
	r.pending = nil
	r.mu.Unlock()
	if t == nil {
		return func(context.Context) (string, error) { return "", nil }, nil
	}
	if err := t.checkOutside(); err != nil {
		return nil, err
	}
	settle := func(changed []string) error {
		r.mu.Lock()
		paths := append(r.pending, changed...)
		r.pending = nil
		r.mu.Unlock()
		return t.settle(paths)
	}
	if !bash {
		return func(context.Context) (string, error) { return "", settle(nil) }, nil
	}
	m, err := r.scanner.Before(ctx)
	if errors.Is(err, ErrTooManyFiles) {
		return func(context.Context) (string, error) {
			return "bash changes are not captured for /undo: the workspace has too many files", settle(nil)
		}, nil
	}
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (string, error) {
		changed, notCaptured, err := r.scanner.After(ctx, m, t)
		if err != nil {
			return "", err
		}
		abs := make([]string, len(changed))
		for i, rel := range changed {
			abs[i] = filepath.Join(r.workspace, strings.TrimSuffix(rel, "/"))
		}
		if err := settle(abs); err != nil || len(notCaptured) == 0 {
			return "", err
		}
		return fmt.Sprintf("not captured for /undo (too large): %v", notCaptured), nil
	}, nil
}

// EndTurn closes the turn and keeps only the newest KeepTurns snapshots.
func (r *Recorder) EndTurn(ctx context.Context) error {
	r.mu.Lock()
	id := r.session
	r.turn = nil
	r.mu.Unlock()
	if id == "" {
		return nil
	}
	return r.store.PruneUndo(ctx, id, KeepTurns)
}

// Undone is what UndoLatest did: the paths restored, those it could not
// restore and why, and those it left because they changed outside
// coder's calls (relative to the workspace, directories with a trailing
// slash).
type Undone struct {
	Restored, Problems, Left []string
}

// UndoLatest restores the newest turn that changed files and drops its
// snapshot, so a second call walks further back. It reverts only what
// coder's calls changed: a path changed since by something else (the
// person's editor) is left as it is, and named.
func UndoLatest(ctx context.Context, store Store, sessionID, workspace string) (Undone, error) {
	turns, err := store.UndoTurns(ctx, sessionID)
	if err != nil {
		return Undone{}, err
	}
	for _, turn := range turns {
		entries, err := store.LoadUndo(ctx, sessionID, turn)
		if err != nil {
			return Undone{}, err
		}
		if len(entries) == 0 {
			continue
		}
		keep, left := leaveOutside(entries, workspace)
		var u Undone
		u.Restored, u.Problems, err = Restore(ctx, keep, workspace)
		u.Left = left
		if err != nil {
			return u, err
		}
		return u, store.DropUndo(ctx, sessionID, turn)
	}
	return Undone{}, nil
}

// leaveOutside splits entries into those to restore and the paths
// changed outside coder's calls, which stay as they are.
func leaveOutside(entries []session.UndoEntry, workspace string) (keep []session.UndoEntry, left []string) {
	return leaveSome(entries, workspace, changedOutside)
}

// leaveSome splits entries into those to restore and the paths of those
// to leave (named relative to workspace) — with the directories the turn
// created around them, which are not empty.
func leaveSome(entries []session.UndoEntry, workspace string, leave func(session.UndoEntry) bool) (keep []session.UndoEntry, left []string) {
	var leftAbs []string
	for _, e := range entries {
		if leave(e) {
			leftAbs = append(leftAbs, e.Path)
			left = append(left, relPath(workspace, e))
		}
	}
	for _, e := range entries {
		holds := slices.ContainsFunc(leftAbs, func(p string) bool { return p == e.Path || paths.Within(e.Path, p) && !e.Existed })
		if !holds {
			keep = append(keep, e)
		}
	}
	return keep, left
}

var _ Store = (*session.Store)(nil)
