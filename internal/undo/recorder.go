package undo

import (
	"context"
	"errors"
	"fmt"
	"sync"

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
}

// NewRecorder records into store for the workspace.
func NewRecorder(store Store, workspace string) *Recorder {
	return &Recorder{store: store, workspace: workspace, scanner: NewScanner(workspace, ScannerOptions{})}
}

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

// Capture saves a path's content before a tool changes it. Outside a turn
// (nothing to undo into) it does nothing.
func (r *Recorder) Capture(abs string) error {
	r.mu.Lock()
	t := r.turn
	r.mu.Unlock()
	if t == nil {
		return nil
	}
	return t.Capture(abs)
}

// AroundBash marks the workspace before a bash call; the returned function,
// called after it, captures what the command changed. notice is non-empty
// when changes could not be captured.
func (r *Recorder) AroundBash(ctx context.Context) (after func(context.Context) (notice string, err error), err error) {
	r.mu.Lock()
	t := r.turn
	r.mu.Unlock()
	if t == nil {
		return func(context.Context) (string, error) { return "", nil }, nil
	}
	m, err := r.scanner.Before(ctx)
	if errors.Is(err, ErrTooManyFiles) {
		return func(context.Context) (string, error) {
			return "bash changes are not captured for /undo: the workspace has too many files", nil
		}, nil
	}
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (string, error) {
		_, notCaptured, err := r.scanner.After(ctx, m, t)
		if err != nil || len(notCaptured) == 0 {
			return "", err
		}
		return fmt.Sprintf("not captured for /undo (too large): %v", notCaptured), nil
	}, nil
}

// EndTurn closes the turn and keeps only the newest KeepTurns snapshots.
func (r *Recorder) EndTurn(ctx context.Context) error {
	r.mu.Lock()
	id, t := r.session, r.turn
	r.turn = nil
	r.mu.Unlock()
	if id == "" {
		return nil
	}
	if err := r.recordAfter(ctx, id, t); err != nil { // for /rewind (rewind.go)
		return err
	}
	return r.store.PruneUndo(ctx, id, KeepTurns)
}

// UndoLatest restores the newest turn that changed files and drops its
// snapshot, so a second call walks further back.
func UndoLatest(ctx context.Context, store Store, sessionID, workspace string) (restored, problems []string, err error) {
	turns, err := store.UndoTurns(ctx, sessionID)
	if err != nil {
		return nil, nil, err
	}
	for _, turn := range turns {
		entries, err := store.LoadUndo(ctx, sessionID, turn)
		if err != nil {
			return nil, nil, err
		}
		if len(entries) == 0 {
			continue
		}
		restored, problems, err = Restore(ctx, entries, workspace)
		if err != nil {
			return restored, problems, err
		}
		return restored, problems, store.DropUndo(ctx, sessionID, turn)
	}
	return nil, nil, nil
}

var _ Store = (*session.Store)(nil)
