package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/coder-agent/coder/internal/chat"
)

// Checkpoint persists s: in one transaction it upserts the session row and
// inserts the messages not stored yet, then it brings the JSON snapshot up
// to date (see saveSnapshot). Any failure is returned, naming what failed and where; the
// caller stops the run, so memory and disk never silently diverge.
//
// Only appended messages are written, unless the history was rewritten
// (s.Generation changed, fewer messages than stored, or the last stored
// message edited in place): then all of the session's rows are replaced.
func (st *Store) Checkpoint(ctx context.Context, s *Session) error {
	if err := checkID(s.ID); err != nil {
		return fmt.Errorf("session: checkpoint: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return errClosed
	}
	if err := st.ownLocked(s.ID); err != nil {
		return err
	}
	prev, known := st.persisted[s.ID]
	next, err := st.writeRows(ctx, s, prev, known)
	if err != nil {
		return fmt.Errorf("session: save %s to database %s: %w", s.ID, st.dbPath, err)
	}
	st.persisted[s.ID] = next
	if err := st.saveSnapshot(s); err != nil {
		return fmt.Errorf("session: write snapshot %s: %w", st.SnapshotPath(s.ID), err)
	}
	return nil
}

// needsRewrite reports whether the stored rows can no longer be extended by
// appending. A session this process has not stored or loaded is rewritten
// once: the rows on disk (if any) are unknown, and rewriting them from memory
// is also how a session recovered from its JSON snapshot gets back into SQLite.
func needsRewrite(s *Session, prev persistState, known bool) bool {
	switch {
	case !known, s.Generation != prev.generation, len(s.Messages) < prev.count:
		return true
	case prev.count > 0:
		return !s.Messages[prev.count-1].Equal(&prev.last)
	}
	return false
}

func (st *Store) writeRows(ctx context.Context, s *Session, prev persistState, known bool) (persistState, error) {
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		return prev, err
	}
	defer tx.Rollback()
	if err := st.upsertSession(ctx, tx, s); err != nil {
		return prev, fmt.Errorf("session row: %w", err)
	}
	from := prev.count
	if needsRewrite(s, prev, known) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, s.ID); err != nil {
			return prev, fmt.Errorf("clear messages: %w", err)
		}
		from = 0
	}
	if err := st.insertMessages(ctx, tx, s.ID, s.Messages, from); err != nil {
		return prev, err
	}
	if !known {
		// A session recovered from its snapshot brings its subagent runs
		// back into the database with it; otherwise they are written as
		// they run (CheckpointSubagent).
		for _, run := range s.Subagents {
			if err := replaceSubagentRows(ctx, tx, s.ID, run); err != nil {
				return prev, fmt.Errorf("subagent %s: %w", run.RunID, err)
			}
		}
	}
	if !known || !slices.Equal(prev.todos, s.Todos) {
		if err := replaceTodos(ctx, tx, s.ID, s.Todos); err != nil {
			return prev, fmt.Errorf("todos: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return prev, fmt.Errorf("commit: %w", err)
	}
	return stateOf(s), nil
}

// stateOf records what was just stored; slices are copied so later changes
// by the caller cannot alter the record.
func stateOf(s *Session) persistState {
	ps := persistState{count: len(s.Messages), generation: s.Generation, todos: slices.Clone(s.Todos)}
	if n := len(s.Messages); n > 0 {
		ps.last = s.Messages[n-1].Clone()
	}
	return ps
}

// upsertSession must not be INSERT OR REPLACE: a replace deletes the row
// first, and the ON DELETE CASCADE would take the messages with it.
const upsertSessionSQL = `INSERT INTO sessions (id, workspace, title, created_at, updated_at, model, mode,
    generation, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, message_count)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET
    workspace = excluded.workspace, title = excluded.title, created_at = excluded.created_at,
    updated_at = excluded.updated_at, model = excluded.model, mode = excluded.mode,
    generation = excluded.generation, input_tokens = excluded.input_tokens,
    output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
    cache_write_tokens = excluded.cache_write_tokens, message_count = excluded.message_count`

// workspaceOf is the workspace a session is stored under, in its row and
// its snapshot alike: its own, else the store's. (A snapshot without it
// did not match the session loaded back from its row, and the first
// checkpoint after every resume re-encoded the whole history.)
func (st *Store) workspaceOf(s *Session) string {
	if ws := cleanWorkspace(s.Workspace); ws != "" {
		return ws
	}
	return st.workspace
}

func (st *Store) upsertSession(ctx context.Context, tx *sql.Tx, s *Session) error {
	ws := st.workspaceOf(s)
	updated := s.Updated
	if updated.IsZero() {
		updated = st.now()
	}
	u := s.Usage
	_, err := tx.ExecContext(ctx, upsertSessionSQL, s.ID, ws, s.Title, toNanos(s.Created), toNanos(updated),
		s.Model, s.Mode, s.Generation, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens,
		len(s.Messages))
	return err
}

const insertMessageSQL = `INSERT INTO messages (session_id, seq, role, content, reasoning, reasoning_signature,
    tool_calls_json, tool_call_id, tool_name, is_error, interrupted, created_at, reasoning_blocks_json)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// insertMessages stores msgs[from:] with seq equal to their index.
func (st *Store) insertMessages(ctx context.Context, tx *sql.Tx, id string, msgs []chat.Message, from int) error {
	if from >= len(msgs) {
		return nil
	}
	stmt, err := tx.PrepareContext(ctx, insertMessageSQL)
	if err != nil {
		return fmt.Errorf("prepare message insert: %w", err)
	}
	defer stmt.Close()
	at := st.now().UnixNano()
	for i := from; i < len(msgs); i++ {
		m := &msgs[i]
		calls, err := jsonColumn(m.ToolCalls, len(m.ToolCalls))
		if err != nil {
			return fmt.Errorf("message %d: encode tool calls: %w", i, err)
		}
		blocks, err := jsonColumn(m.ReasoningBlocks, len(m.ReasoningBlocks))
		if err != nil {
			return fmt.Errorf("message %d: encode reasoning blocks: %w", i, err)
		}
		if _, err := stmt.ExecContext(ctx, id, i, string(m.Role), m.Content, m.Reasoning, m.ReasoningSignature,
			calls, m.ToolCallID, m.ToolName, m.IsError, m.Interrupted, at, blocks); err != nil {
			return fmt.Errorf("insert message %d: %w", i, err)
		}
		if m.Role == chat.RoleTool && m.ToolCallID != "" {
			// Its result is stored: the call no longer counts as started.
			if _, err := tx.ExecContext(ctx, `DELETE FROM tool_starts WHERE session_id = ? AND call_id = ?`, id, m.ToolCallID); err != nil {
				return fmt.Errorf("message %d: clear its start: %w", i, err)
			}
		}
	}
	return nil
}

// jsonColumn is v as JSON, or "" when it holds nothing (n == 0).
func jsonColumn(v any, n int) (string, error) {
	if n == 0 {
		return "", nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func replaceTodos(ctx context.Context, tx *sql.Tx, id string, todos []Todo) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM todos WHERE session_id = ?`, id); err != nil {
		return err
	}
	for i, t := range todos {
		if _, err := tx.ExecContext(ctx, `INSERT INTO todos (session_id, id, content, status, position) VALUES (?, ?, ?, ?, ?)`,
			id, t.ID, t.Content, t.Status, i); err != nil {
			return err
		}
	}
	return nil
}
