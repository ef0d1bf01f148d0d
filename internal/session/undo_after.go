package session

import (
	"context"
	"database/sql"
	"fmt"
)

// SaveUndoAfter records, in one transaction, the state each path of a
// turn's snapshot was left in when the turn ended (states by absolute
// path; the states are undo's), and forgets the end states of turns whose
// snapshot is gone (pruned, or undone).
func (st *Store) SaveUndoAfter(ctx context.Context, sessionID string, turn int, states map[string]string) error {
	if err := checkID(sessionID); err != nil {
		return fmt.Errorf("session: save undo end states: %w", err)
	}
	err := st.query(func(db *sql.DB) error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		for p, s := range states {
			if _, err := tx.ExecContext(ctx, `INSERT INTO undo_after (session_id, turn, path, state) VALUES (?, ?, ?, ?)
ON CONFLICT (session_id, turn, path) DO UPDATE SET state = excluded.state`, sessionID, turn, p, s); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM undo_after WHERE session_id = ? AND turn NOT IN
(SELECT DISTINCT turn FROM undo_snapshots WHERE session_id = ?)`, sessionID, sessionID); err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return fmt.Errorf("session: save undo end states of %s turn %d to %s: %w", sessionID, turn, st.dbPath, err)
	}
	return nil
}

// LoadUndoAfter returns the end states recorded for a turn, by path.
func (st *Store) LoadUndoAfter(ctx context.Context, sessionID string, turn int) (map[string]string, error) {
	states := map[string]string{}
	err := st.query(func(db *sql.DB) error {
		rows, err := db.QueryContext(ctx, `SELECT path, state FROM undo_after WHERE session_id = ? AND turn = ?`, sessionID, turn)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p, s string
			if err := rows.Scan(&p, &s); err != nil {
				return err
			}
			states[p] = s
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("session: load undo end states of %s turn %d: %w", sessionID, turn, err)
	}
	return states, nil
}
