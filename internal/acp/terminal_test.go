package acp

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/event"
)

// A command that runs in the editor's terminal shows that terminal in its
// call as soon as it starts, and keeps it (with the exit status) when it
// ends; a subagent's is matched to its own call, not the parent's of the
// same id.
func TestTerminalInToolCalls(t *testing.T) {
	m := newMapper("/ws", nil, nil)
	var got []sdk.SessionUpdate
	for _, e := range []event.Event{
		event.ToolStarted{CallID: "c1", Name: "task", ToolKind: "other", Summary: "general", Args: `{}`},
		event.Subagent{ID: "s1", Agent: "general", Event: event.ToolStarted{CallID: "c1", Name: "bash", ToolKind: "execute", Summary: "make", Args: `{}`}},
		event.Subagent{ID: "s1", Agent: "general", Event: event.ToolTerminal{CallID: "c1", Name: "bash", TerminalID: "t1"}},
		event.Subagent{ID: "s1", Agent: "general", Event: event.ToolFinished{CallID: "c1", Name: "bash", OK: false,
			Result: `{"ok":false,"exit_code":2,"stdout":"x","stderr":"","duration_ms":5,"notes":"put back"}`}},
		event.ToolTerminal{CallID: "never-started", TerminalID: "t2"},
	} {
		got = append(got, m.updates(e)...)
	}
	sameJSON(t, got, `[
		{"sessionUpdate":"tool_call","toolCallId":"c1","title":"task general","kind":"other","status":"in_progress","rawInput":{}},
		{"sessionUpdate":"tool_call","toolCallId":"c1#2","title":"[general] make","kind":"execute","status":"in_progress","rawInput":{}},
		{"sessionUpdate":"tool_call_update","toolCallId":"c1#2","content":[{"type":"terminal","terminalId":"t1"}]},
		{"sessionUpdate":"tool_call_update","toolCallId":"c1#2","status":"failed","content":[
			{"type":"terminal","terminalId":"t1"},
			{"type":"content","content":{"type":"text","text":"exit 2 · 5ms\nput back"}}]}]`)
}
