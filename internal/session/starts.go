package session

import (
	"context"
	"fmt"
)

// MarkStarted records that tool call callID of session id is about to run,
// before it runs: if the process dies before its result is stored, the
// resumed session says the call started and its outcome is unknown. The
// record goes when the call's result is checkpointed.
func (st *Store) MarkStarted(ctx context.Context, id, callID string) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("session: mark started: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return errClosed
	}
	if err := st.ownLocked(id); err != nil {
		return err
	}
	_, err := st.db.ExecContext(ctx, `INSERT OR REPLACE INTO tool_starts (session_id, call_id, started_at) VALUES (?, ?, ?)`,
		id, callID, st.now().UnixNano())
	if err != nil {
		return fmt.Errorf("session: record the start of tool call %s in %s: %w", callID, st.dbPath, err)
	}
	return nil
}

// loadStarts reads the started calls of session id that have no result.
func (st *Store) loadStarts(ctx context.Context, id string) (map[string]bool, error) {
	rows, err := st.db.QueryContext(ctx, `SELECT call_id FROM tool_starts WHERE session_id = ?`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var started map[string]bool
	for rows.Next() {
		var call string
		if err := rows.Scan(&call); err != nil {
			return nil, err
		}
		if started == nil {
			started = map[string]bool{}
		}
		started[call] = true
	}
	return started, rows.Err()
}
