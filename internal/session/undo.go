package session

import (
	"context"
	"database/sql"
	"fmt"
	"os"
)

// UndoEntry is the state of one path before a turn first changed it.
// Rows live in SQLite, so a turn can be undone after a restart.
type UndoEntry struct {
	Path    string // absolute
	Existed bool   // false: the turn created it, and undo removes it
	// Mode holds the permission bits, plus os.ModeSymlink for a symbolic link
	// (Content is then its target) or os.ModeDir for a directory (no Content).
	Mode    os.FileMode
	Content []byte
	// Skipped says why the content was not captured (too large, unreadable);
	// empty when it was. Such an entry is reported by undo, not restored.
	Skipped string
	// After is the path's state as coder's own last change in the turn left
	// it (undo's fingerprint), "outside" once something else changed it
	// between coder's calls, "" when unknown.
	After string
}

// SaveUndo records e in the snapshot of turn. The first capture of a path in
// a turn wins: later ones are ignored, since undo must go back to the state
// before the turn's first change. The session's row must exist (the user
// message is checkpointed before any tool runs).
func (st *Store) SaveUndo(ctx context.Context, sessionID string, turn int, e UndoEntry) error {
	if err := checkID(sessionID); err != nil {
		return fmt.Errorf("session: save undo: %w", err)
	}
	var content []byte
	if e.Existed && e.Skipped == "" {
		content = e.Content
		if content == nil {
			content = []byte{} // NULL would read back as "no content"
		}
	}
	err := st.execOwned(ctx, sessionID, `INSERT INTO undo_snapshots (session_id, turn, path, existed, mode, content, captured_at, skipped)
VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, turn, path) DO NOTHING`,
		sessionID, turn, e.Path, e.Existed, int64(e.Mode), content, st.now().UnixNano(), e.Skipped)
	if err != nil {
		return fmt.Errorf("session: save undo of %s (session %s, turn %d) to %s: %w", e.Path, sessionID, turn, st.dbPath, err)
	}
	return nil
}

// UndoTurns lists the turns of a session that have a snapshot, newest first.
func (st *Store) UndoTurns(ctx context.Context, sessionID string) ([]int, error) {
	var turns []int
	err := st.query(func(db *sql.DB) error {
		rows, err := db.QueryContext(ctx, `SELECT DISTINCT turn FROM undo_snapshots WHERE session_id = ? ORDER BY turn DESC`, sessionID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var n int
			if err := rows.Scan(&n); err != nil {
				return err
			}
			turns = append(turns, n)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("session: list undo turns of %s: %w", sessionID, err)
	}
	return turns, nil
}

// LoadUndo returns the snapshot of one turn, ordered by path; none if the
// turn has no snapshot.
func (st *Store) LoadUndo(ctx context.Context, sessionID string, turn int) ([]UndoEntry, error) {
	var es []UndoEntry
	err := st.query(func(db *sql.DB) error {
		rows, err := db.QueryContext(ctx, `SELECT path, existed, mode, content, skipped, after_state FROM undo_snapshots
WHERE session_id = ? AND turn = ? ORDER BY path`, sessionID, turn)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e UndoEntry
			var mode int64
			if err := rows.Scan(&e.Path, &e.Existed, &mode, &e.Content, &e.Skipped, &e.After); err != nil {
				return err
			}
			e.Mode = os.FileMode(mode)
			if e.Existed && e.Skipped == "" && e.Content == nil {
				e.Content = []byte{}
			}
			es = append(es, e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("session: load undo of %s turn %d: %w", sessionID, turn, err)
	}
	return es, nil
}

// SetUndoAfter records the state path was left in (UndoEntry.After) in the
// snapshot of turn; a path the turn did not capture is not recorded.
func (st *Store) SetUndoAfter(ctx context.Context, sessionID string, turn int, path, after string) error {
	err := st.execOwned(ctx, sessionID, `UPDATE undo_snapshots SET after_state = ? WHERE session_id = ? AND turn = ? AND path = ?`,
		after, sessionID, turn, path)
	if err != nil {
		return fmt.Errorf("session: record the state of %s (session %s, turn %d): %w", path, sessionID, turn, err)
	}
	return nil
}

// DropUndo deletes the snapshot of one turn (after it was undone).
func (st *Store) DropUndo(ctx context.Context, sessionID string, turn int) error {
	err := st.execOwned(ctx, sessionID, `DELETE FROM undo_snapshots WHERE session_id = ? AND turn = ?`, sessionID, turn)
	if err != nil {
		return fmt.Errorf("session: drop undo of %s turn %d: %w", sessionID, turn, err)
	}
	return nil
}

// PruneUndo keeps the snapshots of the newest keep turns of a session and
// deletes the rest; keep <= 0 deletes them all.
func (st *Store) PruneUndo(ctx context.Context, sessionID string, keep int) error {
	err := st.execOwned(ctx, sessionID, `DELETE FROM undo_snapshots WHERE session_id = ? AND turn NOT IN
(SELECT DISTINCT turn FROM undo_snapshots WHERE session_id = ? ORDER BY turn DESC LIMIT ?)`,
		sessionID, sessionID, max(keep, 0))
	if err != nil {
		return fmt.Errorf("session: prune undo of %s to %d turns: %w", sessionID, keep, err)
	}
	return nil
}

// execOwned runs one write statement of session id, which this process
// must own (owner.go).
func (st *Store) execOwned(ctx context.Context, id, q string, args ...any) error {
	if err := checkID(id); err != nil {
		return err
	}
	return st.query(func(db *sql.DB) error {
		if err := st.ownLocked(id); err != nil {
			return err
		}
		_, err := db.ExecContext(ctx, q, args...)
		return err
	})
}

// query runs fn on the open database under the store's lock, as the other
// methods do: there is one connection, and Close must wait for fn.
func (st *Store) query(fn func(*sql.DB) error) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return errClosed
	}
	return fn(st.db)
}
