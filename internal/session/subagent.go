package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

// SubagentRun is one run of a subagent (the task tool): its own history,
// tagged with the task call that started it. It is part of the session's
// record — listed, resumed, in the snapshot — but never of the history sent
// to the model: the parent sees only the task call's result.
type SubagentRun struct {
	// RunID is unique within the session (the subagent's own session id).
	RunID string `json:"run_id"`
	// TaskCallID is the parent's task tool call.
	TaskCallID string `json:"task_call_id"`
	// Agent is the subagent kind ("explore", "general"); Subagent the id
	// its events were tagged with ("1", "2", …).
	Agent    string         `json:"agent"`
	Subagent string         `json:"subagent"`
	Started  time.Time      `json:"started"`
	Messages []chat.Message `json:"messages"`
}

// CheckpointSubagent stores run's messages under session id, replacing what
// was stored for the run before. The session's row must exist (the parent
// saved its user message before any tool ran). The session's snapshot is
// not touched: it gets the run from Session.Subagents at the parent's next
// checkpoint.
func (st *Store) CheckpointSubagent(ctx context.Context, id string, run SubagentRun) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("session: checkpoint subagent: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return errClosed
	}
	if err := st.ownLocked(id); err != nil {
		return err
	}
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("session: save subagent %s of %s: %w", run.RunID, id, err)
	}
	defer tx.Rollback()
	if err := replaceSubagentRows(ctx, tx, id, run); err != nil {
		return fmt.Errorf("session: save subagent %s of %s to %s: %w", run.RunID, id, st.dbPath, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("session: save subagent %s of %s: commit: %w", run.RunID, id, err)
	}
	return nil
}

const insertSubagentSQL = `INSERT INTO subagent_messages (session_id, run_id, seq, task_call_id, agent, subagent,
    started_at, role, tool_name, message_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// replaceSubagentRows writes every message of run. A run is a few dozen
// messages at most (agents.subagents.max_steps), so rewriting it is cheap
// and stays right when its history is compacted.
func replaceSubagentRows(ctx context.Context, tx *sql.Tx, id string, run SubagentRun) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM subagent_messages WHERE session_id = ? AND run_id = ?`, id, run.RunID); err != nil {
		return fmt.Errorf("clear subagent messages: %w", err)
	}
	started := toNanos(run.Started)
	for i, m := range run.Messages {
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("subagent message %d: %w", i, err)
		}
		if _, err := tx.ExecContext(ctx, insertSubagentSQL, id, run.RunID, i, run.TaskCallID, run.Agent, run.Subagent,
			started, string(m.Role), m.ToolName, string(b)); err != nil {
			return fmt.Errorf("insert subagent message %d: %w", i, err)
		}
	}
	return nil
}

const selectSubagentSQL = `SELECT run_id, seq, task_call_id, agent, subagent, started_at, message_json
FROM subagent_messages WHERE session_id = ? ORDER BY started_at, run_id, seq`

// loadSubagents reads the session's subagent runs, oldest first.
func (st *Store) loadSubagents(ctx context.Context, id string) ([]SubagentRun, error) {
	rows, err := st.db.QueryContext(ctx, selectSubagentSQL, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var runs []SubagentRun
	for rows.Next() {
		var r SubagentRun
		var seq int
		var started int64
		var msg string
		if err := rows.Scan(&r.RunID, &seq, &r.TaskCallID, &r.Agent, &r.Subagent, &started, &msg); err != nil {
			return nil, err
		}
		if n := len(runs); n == 0 || runs[n-1].RunID != r.RunID {
			r.Started = fromNanos(started)
			runs = append(runs, r)
		}
		cur := &runs[len(runs)-1]
		var m chat.Message
		if err := json.Unmarshal([]byte(msg), &m); err != nil {
			return nil, fmt.Errorf("subagent %s message %d: %w", r.RunID, seq, err)
		}
		cur.Messages = append(cur.Messages, m)
	}
	return runs, rows.Err()
}
