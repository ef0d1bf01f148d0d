package session

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

func subRun(id, task string, n int) SubagentRun {
	r := SubagentRun{RunID: id, TaskCallID: task, Agent: "explore", Subagent: "1", Started: t0.Add(time.Second)}
	r.Messages = []chat.Message{{Role: chat.RoleUser, Content: "look"}}
	for i := 1; i < n; i++ {
		r.Messages = append(r.Messages, chat.Message{Role: chat.RoleAssistant, Content: "calling",
			ToolCalls: []chat.ToolCall{{ID: task + "-read", Name: "read", Arguments: `{"path":"a"}`}}})
	}
	return r
}

// TestSubagentRunsStoredApart: a run is stored, rewritten as it grows,
// loaded into Subagents (never Messages), counted in the list, and brought
// back from the snapshot when the database is lost.
func TestSubagentRunsStoredApart(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	st := openStore(t, dir, "/w", nil)
	s := fullSession()
	checkpoint(t, st, s)
	ctx := context.Background()
	for _, n := range []int{1, 3, 2} { // grows, then shrinks (a compacted run)
		if err := st.CheckpointSubagent(ctx, s.ID, subRun("run-a", "task-1", n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CheckpointSubagent(ctx, s.ID, subRun("run-b", "task-2", 1)); err != nil {
		t.Fatal(err)
	}
	if n := rowCount(t, st, "subagent_messages", s.ID); n != 3 {
		t.Fatalf("%d subagent rows, want 3", n)
	}
	// The parent saves with the runs in memory, as the orchestrator does.
	s.Subagents = []SubagentRun{subRun("run-a", "task-1", 2), subRun("run-b", "task-2", 1)}
	checkpoint(t, st, s)
	st.Close()

	st = openStore(t, dir, "/w", nil)
	got, err := st.Load(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != len(s.Messages) || len(got.Subagents) != 2 ||
		got.Subagents[0].TaskCallID != "task-1" || len(got.Subagents[0].Messages) != 2 ||
		got.Subagents[0].Messages[1].ToolCalls[0].ID != "task-1-read" || got.Subagents[1].RunID != "run-b" {
		t.Fatalf("loaded: %d messages, subagents %+v", len(got.Messages), got.Subagents)
	}
	sums, err := st.List(ctx, 0)
	if err != nil || len(sums) != 1 || sums[0].Subagents != 2 || !strings.Contains(FormatList(sums, nil), "· 2 subagent runs") {
		t.Fatalf("list %+v %v", sums, err)
	}
	st.Close()

	// The database is lost: the snapshot brings the runs back, and the
	// next checkpoint writes them to the new database.
	if err := os.Remove(st.Path()); err != nil {
		t.Fatal(err)
	}
	st = openStore(t, dir, "/w", nil)
	got, err = st.Load(ctx, s.ID)
	if err != nil || len(got.Subagents) != 2 {
		t.Fatalf("from the snapshot: %+v %v", got, err)
	}
	checkpoint(t, st, got)
	if n := rowCount(t, st, "subagent_messages", s.ID); n != 3 {
		t.Fatalf("%d subagent rows after recovery, want 3", n)
	}
}

// TestSubagentMigrationOnAnOldDatabase: a database from before migration
// 005 keeps its sessions and gains the table.
func TestSubagentMigrationOnAnOldDatabase(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	st := openStore(t, dir, "/w", nil)
	s := fullSession()
	checkpoint(t, st, s)
	// Back to before 005, as a database written by an older coder.
	for _, q := range []string{`DROP TABLE subagent_messages`, `ALTER TABLE undo_snapshots DROP COLUMN after_state`,
		`DELETE FROM schema_migrations WHERE version >= 5`} {
		if _, err := st.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()

	st = openStore(t, dir, "/w", nil)
	got, err := st.Load(context.Background(), s.ID)
	if err != nil || len(got.Messages) != len(s.Messages) || len(got.Subagents) != 0 {
		t.Fatalf("after migrating: %+v %v", got, err)
	}
	if err := st.CheckpointSubagent(context.Background(), s.ID, subRun("r", "t", 2)); err != nil {
		t.Fatal(err)
	}
	if n := rowCount(t, st, "subagent_messages", s.ID); n != 2 {
		t.Fatalf("%d rows", n)
	}
}
