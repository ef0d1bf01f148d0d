package session

import (
	"context"
	"fmt"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

// UsageRecord is the token usage of one model call.
type UsageRecord struct {
	RunID     string
	ModelCall int // 1-based index of the call within the run
	Model     string
	Usage     chat.Usage
	At        time.Time
}

// RecordUsage stores the usage of one model call of session id, which must
// have been checkpointed. (RunID, ModelCall) is the idempotency key of seed
// 03: a retried call reuses its index, so its row is replaced, not added.
func (st *Store) RecordUsage(ctx context.Context, id string, r UsageRecord) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("session: record usage: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return errClosed
	}
	if err := st.ownLocked(id); err != nil {
		return err
	}
	at := r.At
	if at.IsZero() {
		at = st.now()
	}
	u := r.Usage
	_, err := st.db.ExecContext(ctx, `INSERT INTO usage (session_id, model_call, run_id, model, input, output, cache_read, cache_write, at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (session_id, run_id, model_call) DO UPDATE SET model = excluded.model, input = excluded.input,
    output = excluded.output, cache_read = excluded.cache_read, cache_write = excluded.cache_write, at = excluded.at`,
		id, r.ModelCall, r.RunID, r.Model, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, toNanos(at))
	if err != nil {
		return fmt.Errorf("session: record usage of %s in %s: %w", id, st.dbPath, err)
	}
	return nil
}

// UsageRecords returns the per-call usage of session id, oldest first.
func (st *Store) UsageRecords(ctx context.Context, id string) ([]UsageRecord, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return nil, errClosed
	}
	rows, err := st.db.QueryContext(ctx, `SELECT run_id, model_call, model, input, output, cache_read, cache_write, at
FROM usage WHERE session_id = ? ORDER BY at, run_id, model_call`, id)
	if err != nil {
		return nil, fmt.Errorf("session: usage of %s in %s: %w", id, st.dbPath, err)
	}
	defer rows.Close()
	var out []UsageRecord
	for rows.Next() {
		var r UsageRecord
		var at int64
		u := &r.Usage
		if err := rows.Scan(&r.RunID, &r.ModelCall, &r.Model, &u.InputTokens, &u.OutputTokens, &u.CacheReadTokens, &u.CacheWriteTokens, &at); err != nil {
			return nil, fmt.Errorf("session: usage of %s: %w", id, err)
		}
		r.At = fromNanos(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
