package session

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

var t0 = time.Date(2026, 11, 22, 8, 4, 12, 123456789, time.UTC)

// clock is a settable fake time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func openStore(t testing.TB, dir, workspace string, c *clock) *Store {
	t.Helper()
	opts := StoreOptions{Dir: dir, Workspace: workspace}
	if c != nil {
		opts.Now = c.now
	}
	st, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// fullSession uses every persisted field.
func fullSession() *Session {
	s := New(t0, "claude-test", "build")
	s.Title = "Fix the parser <&> 修复"
	s.Updated = t0.Add(time.Minute)
	s.Usage = chat.Usage{InputTokens: 1200, OutputTokens: 340, CacheReadTokens: 56, CacheWriteTokens: 7}
	s.Todos = []Todo{{ID: "1", Content: "read parser.go", Status: TodoDone}, {ID: "2", Content: "fix it", Status: TodoInProgress}}
	s.Messages = []chat.Message{
		{Role: chat.RoleUser, Content: "fix the parser\nplease"},
		{Role: chat.RoleAssistant, Content: "Reading.", Reasoning: "look first", ReasoningSignature: "sig==",
			ToolCalls: []chat.ToolCall{{ID: "c1", Name: "read", Arguments: `{"path":"parser.go"}`}, {ID: "c2", Name: "grep", Arguments: `{"pattern":`}}},
		{Role: chat.RoleTool, ToolCallID: "c1", ToolName: "read", Content: "package parser\n"},
		{Role: chat.RoleTool, ToolCallID: "c2", ToolName: "grep", Content: `{"ok":false}`, IsError: true},
		{Role: chat.RoleAssistant, Content: "partial answ", Interrupted: true},
	}
	return s
}

// equalSessions compares field by field, times by instant (a loaded time is
// in UTC, the original may be in another location).
func equalSessions(t *testing.T, got, want *Session) {
	t.Helper()
	if !got.Created.Equal(want.Created) || !got.Updated.Equal(want.Updated) {
		t.Errorf("times = %v, %v; want %v, %v", got.Created, got.Updated, want.Created, want.Updated)
	}
	g, w := *got, *want
	g.Created, g.Updated, w.Created, w.Updated = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if len(g.Messages) == 0 && len(w.Messages) == 0 {
		g.Messages, w.Messages = nil, nil
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("session differs\n got: %+v\nwant: %+v", g, w)
	}
}

// rowCount counts a session's rows in table.
func rowCount(t testing.TB, st *Store, table, id string) int {
	t.Helper()
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM `+table+` WHERE session_id = ?`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// bigSession has n messages shaped like a tool loop: user, assistant with a
// tool call, a ~1 KB tool result, repeated.
func bigSession(n int) *Session {
	s := New(t0, "m", "build")
	s.Title = "big"
	out := strings.Repeat("line of tool output\n", 50)
	for i := range n {
		switch i % 3 {
		case 0:
			s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("step %d: do the next thing", i)})
		case 1:
			s.Messages = append(s.Messages, chat.Message{Role: chat.RoleAssistant, Content: "Running it.",
				ToolCalls: []chat.ToolCall{{ID: fmt.Sprintf("c%d", i), Name: "bash", Arguments: `{"command":"go test ./..."}`}}})
		default:
			s.Messages = append(s.Messages, chat.Message{Role: chat.RoleTool, ToolCallID: fmt.Sprintf("c%d", i-1), ToolName: "bash", Content: out})
		}
	}
	return s
}

func checkpoint(t testing.TB, st *Store, s *Session) {
	t.Helper()
	if err := st.Checkpoint(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

func tempDir(t testing.TB) string { return filepath.Join(t.TempDir(), ".coder") }
