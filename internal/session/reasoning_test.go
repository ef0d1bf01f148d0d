package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// reasoningSession holds a provider's reasoning state as it must be sent
// back: per-block signatures, verbatim provider objects, a tool call's
// extra content; and a message in the older one-signature form.
func reasoningSession() *Session {
	s := New(t0, "claude-test", "build")
	s.Messages = []chat.Message{
		{Role: chat.RoleUser, Content: "go"},
		{Role: chat.RoleAssistant, Reasoning: "old", ReasoningSignature: "legacySig=="},
		{Role: chat.RoleUser, Content: "again"},
		{Role: chat.RoleAssistant, Reasoning: "one two", ReasoningBlocks: []chat.ReasoningBlock{
			{Kind: chat.ReasoningThinking, Text: "one", Signature: "sigA=="},
			{Kind: chat.ReasoningRedacted, Raw: `{"type":"redacted_thinking","data":"EmwK"}`},
			{Kind: chat.ReasoningDetails, Text: " two", Raw: `{"type":"reasoning.encrypted","data":"gAAA","index":1}`},
		}, ToolCalls: []chat.ToolCall{{ID: "c3", Name: "ls", Arguments: `{}`, Extra: `{"google":{"thought_signature":"CsUB"}}`}}},
		{Role: chat.RoleTool, ToolCallID: "c3", ToolName: "ls", Content: "a.go"},
	}
	return s
}

func TestReasoningStateSurvivesARestart(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	st := openStore(t, dir, "/w", nil)
	s := reasoningSession()
	s.Workspace = "/w"
	checkpoint(t, st, s)
	st.Close()

	st = openStore(t, dir, "/w", nil)
	got, err := st.Load(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	equalSessions(t, got, s)
	if blocks := got.Messages[1].ReasoningState(); len(blocks) != 1 || blocks[0].Signature != "legacySig==" {
		t.Errorf("an old message's signature is not usable: %+v", blocks)
	}
}

func TestReasoningStateInSnapshotIsPlainJSON(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	st := openStore(t, dir, "/w", nil)
	s := reasoningSession()
	s.Workspace = "/w"
	checkpoint(t, st, s)
	b, err := os.ReadFile(filepath.Join(dir, "sessions", s.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	// Verbatim objects are nested JSON, not escaped strings.
	if !strings.Contains(string(b), `"raw": {`) || !strings.Contains(string(b), `"extra_content": {`) {
		t.Errorf("snapshot does not nest the provider objects:\n%s", b)
	}
	var got Session
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	equalSessions(t, &got, s)
}
