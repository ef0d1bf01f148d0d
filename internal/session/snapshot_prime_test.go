package session

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// After a resume, the first checkpoint must write exactly what a full
// re-encode would, and append to the file in place rather than rewrite it
// (a session made as the orchestrator makes one: its workspace is the
// store's).
func TestPrimedSnapshotMatchesFullEncode(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir, "/ws", nil)
	s := New(t0, "m", "build")
	for i := range 50 {
		s.Messages = append(s.Messages,
			chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("q%d with \"quotes\", <html> & a\nnewline", i)},
			chat.Message{Role: chat.RoleAssistant, Content: "a", ToolCalls: []chat.ToolCall{{ID: fmt.Sprint(i), Name: "read", Arguments: `{"path":"x"}`}}},
			chat.Message{Role: chat.RoleTool, ToolCallID: fmt.Sprint(i), Content: "{\n  \"nested\": {}\n}", IsError: i%2 == 0})
	}
	ctx := context.Background()
	if err := st.Checkpoint(ctx, s); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st2 := openStore(t, dir, "/ws", nil)
	loaded, err := st2.Load(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st2.snap == nil || st2.snap.file.count != len(loaded.Messages) {
		t.Fatal("the snapshot cache was not primed from disk")
	}
	before := inodeOf(t, st2.SnapshotPath(s.ID))
	loaded.Messages = append(loaded.Messages, chat.Message{Role: chat.RoleUser, Content: "next"})
	if err := st2.Checkpoint(ctx, loaded); err != nil {
		t.Fatal(err)
	}
	if inodeOf(t, st2.SnapshotPath(s.ID)) != before {
		t.Error("the first checkpoint after a resume rewrote the whole snapshot")
	}
	got, err := os.ReadFile(st2.SnapshotPath(s.ID))
	if err != nil {
		t.Fatal(err)
	}
	want, err := encodeIndented(st2.view(loaded), "")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("primed snapshot differs from a full encode")
	}
}

func TestSplitMessagesRefusesAMismatch(t *testing.T) {
	if m, _, _ := splitMessages([]byte("{\n  \"messages\": [\n    {\n      \"role\": \"user\"\n    }\n  ]\n}\n"), 2); m != nil {
		t.Fatal("a count mismatch was accepted")
	}
	if m, _, _ := splitMessages([]byte("{}"), 0); m != nil {
		t.Fatal("a file without messages was accepted")
	}
}
