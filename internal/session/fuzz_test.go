package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// FuzzSnapshot reads any session JSON snapshot, as --resume does when the
// database lacks the session (the snapshot is a plain file people may edit
// or truncate). Loading never panics; RepairInterrupted leaves every tool
// call with a result right after it; and what loads survives a Checkpoint
// and a Load from the database unchanged.
func FuzzSnapshot(f *testing.F) {
	f.Add(`{"id":"ID","title":"t","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","name":"bash","arguments":"{\"command\":\"ls\"}"},{"id":"c2","name":"read","arguments":"{"}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`)
	f.Add(`{"id":"ID","messages":[{"role":"assistant","tool_calls":[{"id":"c","name":"x","arguments":""},{"id":"c","name":"x","arguments":""}]},{"role":"user","content":"next"}],"todos":[{"id":"1","content":"a","status":"pending"}]}`)
	f.Add(`{"id":"ID","messages":[{"role":"tool","tool_call_id":"orphan","content":"\u0000nul"},{"role":"weird","content":"é\ud800"}],"generation":-3}`)
	f.Add(`{"id":"ID","messages":null,"usage":{"input_tokens":1e3}}`)
	f.Add(`{"id":"other","messages":[]}`)
	f.Add(`{"id":"ID","messages":[{"role":"user","content":"truncated`)
	f.Add(`[]`)
	dir := f.TempDir()
	st, err := Open(StoreOptions{Dir: dir, Workspace: dir})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, data string) {
		id := fmt.Sprintf("fuzz-%d", n.Add(1))
		if err := os.WriteFile(st.SnapshotPath(id), []byte(strings.ReplaceAll(data, `"ID"`, `"`+id+`"`)), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(st.SnapshotPath(id))
		s, err := st.Load(context.Background(), id)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		RepairInterrupted(s)
		for i, m := range s.Messages {
			if m.Role != chat.RoleAssistant || len(m.ToolCalls) == 0 {
				continue
			}
			have := map[string]bool{}
			for j := i + 1; j < len(s.Messages) && s.Messages[j].Role == chat.RoleTool; j++ {
				have[s.Messages[j].ToolCallID] = true
			}
			for _, c := range m.ToolCalls {
				if !have[c.ID] {
					t.Fatalf("after repair, call %q of message %d has no result", c.ID, i)
				}
			}
		}
		if err := st.Checkpoint(context.Background(), s); err != nil {
			t.Fatalf("a loaded session cannot be saved: %v", err)
		}
		os.Remove(st.SnapshotPath(id)) // the next Load must come from the database
		back, err := st.Load(context.Background(), id)
		if err != nil {
			t.Fatalf("a saved session cannot be loaded: %v", err)
		}
		if len(s.Messages) == 0 && len(back.Messages) == 0 {
			return
		}
		want, _ := json.Marshal(s.Messages)
		got, _ := json.Marshal(back.Messages)
		if string(want) != string(got) {
			t.Fatalf("messages changed through the database:\n%s\n%s", want, got)
		}
	})
}
