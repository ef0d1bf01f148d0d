package acp

import (
	"encoding/json"
	"reflect"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

// sameJSON compares values by their JSON, as the editor receives them.
func sameJSON(t *testing.T, got any, want string) {
	t.Helper()
	gb, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(gb, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON %s: %v", want, err)
	}
	if !reflect.DeepEqual(g, w) {
		wb, _ := json.Marshal(w)
		t.Fatalf("got  %s\nwant %s", gb, wb)
	}
}

const editDiff = "--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package a\n-var x = 1\n+var x = 2\n \n"

func TestEventsToUpdates(t *testing.T) {
	bashOut := `{"ok":false,"exit_code":1,"stdout":"FAIL x\n","stderr":"boom\n","truncated":false,"duration_ms":12}`
	cases := []struct {
		name   string
		events []event.Event
		want   string // the JSON array of updates
	}{
		{"text and reasoning", []event.Event{event.ReasoningDelta{Text: "hm"}, event.TextDelta{Text: "Hi"}},
			`[{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hm"}},
			  {"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hi"}}]`},
		{"a read call", []event.Event{
			event.ToolStarted{CallID: "c1", Name: "read", ToolKind: "read", Summary: "a.go", Args: `{"path":"a.go"}`, Paths: []string{"a.go"}},
			event.ToolFinished{CallID: "c1", Name: "read", OK: true, Summary: "3 lines"},
		}, `[{"sessionUpdate":"tool_call","toolCallId":"c1","title":"read a.go","kind":"read","status":"in_progress",
			  "locations":[{"path":"/ws/a.go"}],"rawInput":{"path":"a.go"}},
			 {"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed",
			  "content":[{"type":"content","content":{"type":"text","text":"3 lines"}}]}]`},
		{"an edit's diff", []event.Event{
			event.ToolStarted{CallID: "c2", Name: "edit", ToolKind: "edit", Summary: "a.go", Args: `{}`, Paths: []string{"a.go"}},
			event.ToolFinished{CallID: "c2", Name: "edit", OK: true, Summary: "+1 -1", Diff: editDiff},
		}, `[{"sessionUpdate":"tool_call","toolCallId":"c2","title":"edit a.go","kind":"edit","status":"in_progress",
			  "locations":[{"path":"/ws/a.go"}],"rawInput":{}},
			 {"sessionUpdate":"tool_call_update","toolCallId":"c2","status":"completed",
			  "content":[{"type":"diff","path":"/ws/a.go","oldText":"package a\nvar x = 1\n\n","newText":"package a\nvar x = 2\n\n"}],
			  "locations":[{"path":"/ws/a.go","line":1}]}]`},
		{"a failing bash call", []event.Event{
			event.ToolStarted{CallID: "c3", Name: "bash", ToolKind: "execute", Summary: "go test", Args: `{"command":"go test"}`},
			event.ToolFinished{CallID: "c3", Name: "bash", OK: false, Summary: "exit 1", Result: bashOut},
		}, `[{"sessionUpdate":"tool_call","toolCallId":"c3","title":"go test","kind":"execute","status":"in_progress","rawInput":{"command":"go test"}},
			 {"sessionUpdate":"tool_call_update","toolCallId":"c3","status":"failed",
			  "content":[{"type":"content","content":{"type":"text","text":"` + "```console\\nFAIL x\\nboom\\n```\\nexit 1 · 12ms" + `"}}]}]`},
		{"todos as the plan, modes, verification", []event.Event{
			event.TodoUpdated{Todos: []session.Todo{{ID: "1", Content: "a", Status: "done"}, {ID: "2", Content: "b", Status: "in_progress"}, {ID: "3", Content: "c", Status: "pending"}}},
			event.ModeChanged{Agent: "plan", Mode: "plan"},
			event.TurnFinished{State: event.StateCompleted, Verification: "verified: go test ./... (exit 0)"},
		}, `[{"sessionUpdate":"plan","entries":[{"content":"a","priority":"medium","status":"completed"},
			  {"content":"b","priority":"medium","status":"in_progress"},{"content":"c","priority":"medium","status":"pending"}]},
			 {"sessionUpdate":"current_mode_update","currentModeId":"plan"},
			 {"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\n\nverified: go test ./... (exit 0)\n"}}]`},
		{"notices and command output, not errors", []event.Event{
			event.Notice{Text: "retrying\nsoon"},
			event.CommandOutput{Command: "/todos", Text: "no todos\n"},
			event.CommandOutput{Command: "!ls", Block: "COMMAND", Text: "$ ls\nexit=0"},
			event.Error{Message: "the provider failed"},
		}, `[{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\n\n> retrying\n> soon\n\n"}},
			 {"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"no todos\n"}},
			 {"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"\n` + "```\\n$ ls\\nexit=0\\n```" + `\n"}}]`},
		{"hook runs as thoughts", []event.Event{
			event.HookRan{Event: "PreToolUse", Tool: "bash", Command: "check.sh", Outcome: "blocked", Reason: "no rm"},
			event.HookRan{Event: "PostToolUse", Tool: "write", Command: "fmt.sh", Outcome: "ok", Output: "formatted 1 file\n"},
		}, `[{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"[hook] PreToolUse bash: blocked — no rm\n"}},
			 {"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"[hook] PostToolUse write: ok\nformatted 1 file\n"}}]`},
		{"a subagent's calls, titled and kept apart", []event.Event{
			event.ToolStarted{CallID: "task1", Name: "task", ToolKind: "other", Summary: "explore", Args: `{}`},
			event.Subagent{ID: "s1", Agent: "explore", Event: event.ToolStarted{CallID: "task1", Name: "grep", ToolKind: "search", Summary: "foo", Args: `{}`}},
			event.Subagent{ID: "s1", Agent: "explore", Event: event.TextDelta{Text: "inner"}},
			event.Subagent{ID: "s1", Agent: "explore", Event: event.ToolFinished{CallID: "task1", Name: "grep", OK: true, Summary: "2 matches"}},
		}, `[{"sessionUpdate":"tool_call","toolCallId":"task1","title":"task explore","kind":"other","status":"in_progress","rawInput":{}},
			 {"sessionUpdate":"tool_call","toolCallId":"task1#2","title":"[explore] grep foo","kind":"search","status":"in_progress","rawInput":{}},
			 {"sessionUpdate":"tool_call_update","toolCallId":"task1#2","status":"completed",
			  "content":[{"type":"content","content":{"type":"text","text":"2 matches"}}]}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := newMapper("/ws", nil, nil)
			got := []sdk.SessionUpdate{}
			for _, e := range tc.events {
				got = append(got, m.updates(e)...)
			}
			sameJSON(t, got, tc.want)
		})
	}
}

// Call ids repeat across model messages with some servers ("call_0"); the
// editor gets a fresh id for each call.
func TestReusedCallIDsGetFreshACPIDs(t *testing.T) {
	m := newMapper("/ws", nil, nil)
	var ids []string
	for range 3 {
		for _, u := range m.updates(event.ToolStarted{CallID: "call_0", Name: "glob", ToolKind: "search"}) {
			ids = append(ids, string(u.ToolCall.ToolCallId))
		}
		u := m.updates(event.ToolFinished{CallID: "call_0", Name: "glob", OK: true})
		if got := string(u[0].ToolCallUpdate.ToolCallId); got != ids[len(ids)-1] {
			t.Fatalf("finish went to %s, start was %s", got, ids[len(ids)-1])
		}
	}
	if ids[0] != "call_0" || ids[1] != "call_0#2" || ids[2] != "call_0#3" {
		t.Fatalf("ids %v", ids)
	}
}

// A call refused before it ran (here: disabled in plan mode) never starts;
// the editor still sees it as the call it was, failed.
func TestRefusedCallIsShownAsItsTypedCall(t *testing.T) {
	ws := t.TempDir()
	w, err := tools.NewWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(tools.Builtins(tools.Env{Workspace: w})...)
	if err != nil {
		t.Fatal(err)
	}
	m := newMapper(w.Root, reg.Decode, nil)
	got := m.updates(event.ToolFinished{CallID: "c", Name: "write", Args: `{"path":"p.txt","content":"x"}`, OK: false,
		Summary: `tool "write" is disabled in plan mode`})
	sameJSON(t, got, `[{"sessionUpdate":"tool_call","toolCallId":"c","title":"write p.txt","kind":"edit","status":"failed",
		"content":[{"type":"content","content":{"type":"text","text":"tool \"write\" is disabled in plan mode"}}],
		"locations":[{"path":"`+w.Root+`/p.txt"}],"rawInput":{"path":"p.txt","content":"x"}}]`)
}

// An approval announces the call as pending, with the reasons and the
// diff it would apply; the call's start and end then update that call.
func TestApprovalAnnouncesTheTypedCall(t *testing.T) {
	w, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.NewRegistry(tools.Builtins(tools.Env{Workspace: w})...)
	if err != nil {
		t.Fatal(err)
	}
	c := reg.Decode(chat.ToolCall{ID: "e1", Name: "write", Arguments: `{"path":"n.txt","content":"new\n"}`})
	m := newMapper(w.Root, reg.Decode, nil)
	abs := w.Root + "/n.txt"
	call, announce := m.approvalRequest(permission.Request{Call: c, PolicyAsk: true, Reasons: []string{"write requires approval"},
		Preview: "--- a/n.txt\n+++ b/n.txt\n@@ -0,0 +1 @@\n+new\n"})
	sameJSON(t, announce, `[{"sessionUpdate":"tool_call","toolCallId":"e1","title":"write n.txt","kind":"edit","status":"pending",
		"locations":[{"path":"`+abs+`"}],"rawInput":{"path":"n.txt","content":"new\n"}}]`)
	sameJSON(t, call, `{"toolCallId":"e1","title":"write n.txt","kind":"edit","status":"pending","locations":[{"path":"`+abs+`"}],
		"content":[{"type":"content","content":{"type":"text","text":"- write requires approval"}},
		           {"type":"diff","path":"`+abs+`","newText":"new\n"}]}`)
	started := m.updates(event.ToolStarted{CallID: "e1", Name: "write", ToolKind: "edit", Summary: "n.txt", Paths: []string{"n.txt"}})
	sameJSON(t, started, `[{"sessionUpdate":"tool_call_update","toolCallId":"e1","status":"in_progress","title":"write n.txt","kind":"edit",
		"locations":[{"path":"`+abs+`"}]}]`)
	if u := m.updates(event.ToolFinished{CallID: "e1", Name: "write", OK: true}); u[0].ToolCallUpdate == nil || u[0].ToolCallUpdate.ToolCallId != "e1" {
		t.Fatalf("finish: %+v", u)
	}
}

func TestPermissionOptions(t *testing.T) {
	bash := &tools.Call{Name: tools.Bash, Subject: "make"}
	sameJSON(t, permissionOptions(permission.Request{Call: bash, PolicyAsk: true}), `[
		{"optionId":"allow_once","name":"Allow once","kind":"allow_once"},
		{"optionId":"allow_always","name":"Always allow this command","kind":"allow_always"},
		{"optionId":"reject_once","name":"Reject","kind":"reject_once"}]`)
	// A danger request is y/n only, even when the policy asked too.
	sameJSON(t, permissionOptions(permission.Request{Call: bash, PolicyAsk: true, Danger: true}), `[
		{"optionId":"allow_once","name":"Allow once","kind":"allow_once"},
		{"optionId":"reject_once","name":"Reject","kind":"reject_once"}]`)
	for id, want := range map[string]permission.Reply{
		optAllowOnce: {Approved: true}, optAllowAlways: {Approved: true, Always: true}, optReject: {}, "bogus": {},
	} {
		got, err := replyFor(sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id)}})
		if err != nil || got != want {
			t.Fatalf("%s: %+v %v", id, got, err)
		}
	}
	if _, err := replyFor(sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}); err == nil {
		t.Fatal("a cancelled outcome must cancel, not deny")
	}
}
