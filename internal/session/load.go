package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

// Summary is one line of a session list.
type Summary struct {
	ID, Title        string
	Created, Updated time.Time
	Messages         int
	Model, Mode      string
	// Subagents counts the task tool's stored runs (not in Messages).
	Subagents int
}

// Load reads session id from the database. When the database has no such
// session but a JSON snapshot exists (the database was deleted, or a write
// to it failed after the snapshot of an earlier version), the snapshot is
// loaded instead, and the next Checkpoint writes it back to the database.
// An unknown id gives an error wrapping ErrNotFound.
func (st *Store) Load(ctx context.Context, id string) (*Session, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.loadLocked(ctx, id)
}

func (st *Store) loadLocked(ctx context.Context, id string) (*Session, error) {
	if st.db == nil {
		return nil, errClosed
	}
	s, err := st.loadRows(ctx, id)
	if errors.Is(err, ErrNotFound) {
		// Whatever this process stored is gone: the next Checkpoint must
		// write every row again, not append to rows that do not exist.
		delete(st.persisted, id)
		return st.loadSnapshot(id)
	}
	if err != nil {
		return nil, fmt.Errorf("session: load %s from %s: %w", id, st.dbPath, err)
	}
	st.persisted[id] = stateOf(s)
	st.primeSnapshot(s)
	return s, nil
}

const selectSessionSQL = `SELECT workspace, title, created_at, updated_at, model, mode, generation,
    input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, message_count
FROM sessions WHERE id = ?`

func (st *Store) loadRows(ctx context.Context, id string) (*Session, error) {
	s := &Session{ID: id}
	var created, updated int64
	var count int
	u := &s.Usage
	err := st.db.QueryRowContext(ctx, selectSessionSQL, id).Scan(&s.Workspace, &s.Title, &created, &updated,
		&s.Model, &s.Mode, &s.Generation, &u.InputTokens, &u.OutputTokens, &u.CacheReadTokens, &u.CacheWriteTokens, &count)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("session row: %w", err)
	}
	s.Created, s.Updated = fromNanos(created), fromNanos(updated)
	if s.Messages, err = st.loadMessages(ctx, id, count); err != nil {
		return nil, err
	}
	if s.Todos, err = st.loadTodos(ctx, id); err != nil {
		return nil, fmt.Errorf("todos: %w", err)
	}
	if s.Started, err = st.loadStarts(ctx, id); err != nil {
		return nil, fmt.Errorf("started tool calls: %w", err)
	}
	if s.Subagents, err = st.loadSubagents(ctx, id); err != nil {
		return nil, fmt.Errorf("subagents: %w", err)
	}
	return s, nil
}

const selectMessagesSQL = `SELECT seq, role, content, reasoning, reasoning_signature, tool_calls_json,
    tool_call_id, tool_name, is_error, interrupted, reasoning_blocks_json, images_json, turn
FROM messages WHERE session_id = ? ORDER BY seq`

// loadMessages reads the rows and checks they are exactly seq 0..count-1:
// a gap would be a history the model API rejects, better reported than sent.
func (st *Store) loadMessages(ctx context.Context, id string, count int) ([]chat.Message, error) {
	rows, err := st.db.QueryContext(ctx, selectMessagesSQL, id)
	if err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	defer rows.Close()
	msgs := make([]chat.Message, 0, count)
	var calls, blocks, imgs string
	for rows.Next() {
		var seq int
		var m chat.Message
		if err := rows.Scan(&seq, &m.Role, &m.Content, &m.Reasoning, &m.ReasoningSignature, &calls,
			&m.ToolCallID, &m.ToolName, &m.IsError, &m.Interrupted, &blocks, &imgs, &m.Turn); err != nil {
			return nil, fmt.Errorf("messages: %w", err)
		}
		if seq != len(msgs) {
			return nil, fmt.Errorf("messages: seq %d found where %d was expected", seq, len(msgs))
		}
		if calls != "" {
			if err := json.Unmarshal([]byte(calls), &m.ToolCalls); err != nil {
				return nil, fmt.Errorf("message %d: tool calls: %w", seq, err)
			}
		}
		if blocks != "" {
			if err := json.Unmarshal([]byte(blocks), &m.ReasoningBlocks); err != nil {
				return nil, fmt.Errorf("message %d: reasoning blocks: %w", seq, err)
			}
		}
		if imgs != "" {
			if err := json.Unmarshal([]byte(imgs), &m.Images); err != nil {
				return nil, fmt.Errorf("message %d: images: %w", seq, err)
			}
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	if len(msgs) != count {
		return nil, fmt.Errorf("messages: %d stored, session row says %d", len(msgs), count)
	}
	rows.Close() // one connection: the images are read with it
	if err := fillImages(ctx, st.db, msgs); err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	return msgs, nil
}

func (st *Store) loadTodos(ctx context.Context, id string) ([]Todo, error) {
	rows, err := st.db.QueryContext(ctx, `SELECT id, content, status FROM todos WHERE session_id = ? ORDER BY position`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var todos []Todo
	for rows.Next() {
		var t Todo
		if err := rows.Scan(&t.ID, &t.Content, &t.Status); err != nil {
			return nil, err
		}
		todos = append(todos, t)
	}
	return todos, rows.Err()
}

func (st *Store) loadSnapshot(id string) (*Session, error) {
	path := st.SnapshotPath(id)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("session: read snapshot %s: %w", path, err)
	}
	s := new(Session)
	if err := json.Unmarshal(b, s); err != nil {
		return nil, fmt.Errorf("session: snapshot %s: %w", path, err)
	}
	if s.ID != id {
		return nil, fmt.Errorf("session: snapshot %s holds session %q", path, s.ID)
	}
	// The images are the database's: those it still has come back.
	if err := fillImages(context.Background(), st.db, s.Messages); err != nil {
		return nil, fmt.Errorf("session: snapshot %s: %w", path, err)
	}
	return s, nil
}

// Latest loads the most recently updated session of this workspace.
func (st *Store) Latest(ctx context.Context) (*Session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return nil, errClosed
	}
	var id string
	err := st.db.QueryRowContext(ctx, `SELECT id FROM sessions WHERE workspace = ?
ORDER BY updated_at DESC, id DESC LIMIT 1`, st.workspace).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("no sessions yet in %s: %w", st.workspace, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("session: latest in %s: %w", st.dbPath, err)
	}
	return st.loadLocked(ctx, id)
}

// List returns up to limit sessions of this workspace, newest first; limit
// <= 0 means all. It reads the sessions table (message_count is stored) and
// counts subagent runs through their primary key's prefix.
func (st *Store) List(ctx context.Context, limit int) ([]Summary, error) {
	if limit <= 0 {
		limit = -1 // SQLite: no limit
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return nil, errClosed
	}
	rows, err := st.db.QueryContext(ctx, `SELECT id, title, created_at, updated_at, message_count, model, mode,
    (SELECT COUNT(DISTINCT run_id) FROM subagent_messages m WHERE m.session_id = sessions.id)
FROM sessions WHERE workspace = ? ORDER BY updated_at DESC, id DESC LIMIT ?`, st.workspace, limit)
	if err != nil {
		return nil, fmt.Errorf("session: list %s: %w", st.dbPath, err)
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var s Summary
		var created, updated int64
		if err := rows.Scan(&s.ID, &s.Title, &created, &updated, &s.Messages, &s.Model, &s.Mode, &s.Subagents); err != nil {
			return nil, fmt.Errorf("session: list %s: %w", st.dbPath, err)
		}
		s.Created, s.Updated = fromNanos(created), fromNanos(updated)
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("session: list %s: %w", st.dbPath, err)
	}
	return out, nil
}

// toNanos and fromNanos map times to the INTEGER columns. The zero time is
// stored as 0 because its UnixNano is undefined (year 1 overflows int64).
func toNanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
