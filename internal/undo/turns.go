package undo

import "context"

// BeginTurnAbove starts a turn as BeginTurn does, numbered above last:
// the newest turn the session's history holds. The stored snapshots alone
// do not say which numbers were used (a turn that changed nothing stores
// none, an undone one is dropped), and /rewind restores every snapshot
// from a turn's number on, so numbers must only grow along the history.
func (r *Recorder) BeginTurnAbove(ctx context.Context, sessionID string, last int) (int, error) {
	if err := r.BeginTurn(ctx, sessionID); err != nil {
		return 0, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.turn.turn <= last {
		r.turn = NewTurn(r.store, sessionID, last+1, r.workspace)
		r.next = last + 2
	}
	return r.turn.turn, nil
}
