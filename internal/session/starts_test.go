package session

import (
	"context"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

// A start recorded before a call runs survives a reopen of the store, and
// goes once the call's result is stored.
func TestMarkStartedUntilTheResultIsStored(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	st := openStore(t, dir, "", c)
	s := New(c.t, "m", "build")
	s.Messages = []chat.Message{
		{Role: chat.RoleUser, Content: "go"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "bash", Arguments: "{}"}}},
	}
	checkpoint(t, st, s)
	ctx := context.Background()
	if err := st.MarkStarted(ctx, s.ID, "call_1"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	st = openStore(t, dir, "", c)
	got, err := st.Load(ctx, s.ID)
	if err != nil || !got.Started["call_1"] {
		t.Fatalf("after reopening: %v %v", got.Started, err)
	}
	got.Messages = append(got.Messages, chat.Message{Role: chat.RoleTool, ToolCallID: "call_1", ToolName: "bash", Content: "ok"})
	checkpoint(t, st, got)
	if again, err := st.Load(ctx, s.ID); err != nil || len(again.Started) != 0 || rowCount(t, st, "tool_starts", s.ID) != 0 {
		t.Fatalf("after the result: %v %v", again.Started, err)
	}
}
