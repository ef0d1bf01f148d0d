package acp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/session"
)

// A patch touching three files: an update with two hunks, a new file and
// a deleted one, each hunk its own diff content with old and new text.
func TestDiffContentOfAPatch(t *testing.T) {
	d := "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n@@ -9 +9 @@\n-nine\n+NINE\n" +
		"--- a/new.txt\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n" +
		"--- a/gone.txt\n+++ b/gone.txt\n@@ -1 +0,0 @@\n-bye\n\\ No newline at end of file\n"
	content, locs := diffContent(d, "/ws")
	sameJSON(t, content, `[
		{"type":"diff","path":"/ws/a.txt","oldText":"one\ntwo\n","newText":"ONE\ntwo\n"},
		{"type":"diff","path":"/ws/a.txt","oldText":"nine\n","newText":"NINE\n"},
		{"type":"diff","path":"/ws/new.txt","newText":"x\ny\n"},
		{"type":"diff","path":"/ws/gone.txt","oldText":"bye\n","newText":""}]`)
	sameJSON(t, locs, `[{"path":"/ws/a.txt","line":1},{"path":"/ws/a.txt","line":9},{"path":"/ws/new.txt","line":1},{"path":"/ws/gone.txt"}]`)
}

func TestBashContent(t *testing.T) {
	for _, tc := range []struct{ result, want string }{
		{`{"ok":true,"exit_code":0,"stdout":"","stderr":"","duration_ms":3}`, "exit 0 · 3ms"},
		{`{"ok":false,"exit_code":-1,"stdout":"partial\n","stderr":"","duration_ms":9,"error":"cancelled"}`, "```console\npartial\n```\ncancelled"},
		// Output holding a fence gets a longer one.
		{"{\"ok\":true,\"exit_code\":0,\"stdout\":\"```go\\nx\\n```\\n\",\"stderr\":\"\",\"duration_ms\":1}", "````console\n```go\nx\n```\n````\nexit 0 · 1ms"},
	} {
		c, ok := bashContent(tc.result)
		if !ok {
			t.Fatalf("%s: not a run", tc.result)
		}
		if got := c[0].Content.Content.Text.Text; got != tc.want {
			t.Fatalf("got %q, want %q", got, tc.want)
		}
	}
	// A refusal is no run: it is shown as its message.
	if _, ok := bashContent(`{"ok":false,"error":"the user denied this call"}`); ok {
		t.Fatal("a refusal read as a run")
	}
}

func TestPromptInput(t *testing.T) {
	ws := "/ws"
	blocks := []sdk.ContentBlock{
		sdk.TextBlock("/review look at"),
		sdk.ResourceLinkBlock("a.go", "file:///ws/pkg/a.go"),
		sdk.TextBlock("and"),
		sdk.ResourceLinkBlock("my file.go", "file:///ws/my%20file.go"),
		sdk.ResourceLinkBlock("etc", "file:///etc/hosts"),
		sdk.ResourceLinkBlock("docs", "https://example.com/x"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///ws/b.go", Text: "package b\n"}}),
	}
	got, err := promptInput(blocks, ws)
	if err != nil {
		t.Fatal(err)
	}
	want := "/review look at @pkg/a.go and @\"my file.go\"  /etc/hosts  [docs](https://example.com/x) \n\n" +
		"<context uri=\"file:///ws/b.go\">\npackage b\n</context>\n"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if _, err := promptInput([]sdk.ContentBlock{sdk.ImageBlock("AAAA", "image/png")}, ws); err == nil {
		t.Fatal("an image was accepted, but images are not offered")
	}
}

func TestStopReasons(t *testing.T) {
	failed := errors.New("provider: 401 unauthorized")
	for _, tc := range []struct {
		out      orchestrator.Outcome
		err      error
		lastStop string
		want     sdk.StopReason
		wantErr  string
	}{
		{orchestrator.Outcome{State: event.StateCompleted}, nil, "stop", sdk.StopReasonEndTurn, ""},
		{orchestrator.Outcome{State: event.StateCompleted}, nil, "end_turn", sdk.StopReasonEndTurn, ""},
		{orchestrator.Outcome{State: event.StateAborted}, context.Canceled, "", sdk.StopReasonCancelled, ""},
		{orchestrator.Outcome{State: event.StateFailed}, fmt.Errorf("turn: %w", orchestrator.ErrStepLimit), "tool_calls", sdk.StopReasonMaxTurnRequests, ""},
		{orchestrator.Outcome{State: event.StateFailed, Reason: "cut"}, fmt.Errorf("turn: %w", &orchestrator.TruncatedError{OutputTokens: 10}), "length", sdk.StopReasonMaxTokens, ""},
		{orchestrator.Outcome{State: event.StateFailed, Reason: "cut"}, &orchestrator.TruncatedError{}, "max_tokens", sdk.StopReasonMaxTokens, ""},
		{orchestrator.Outcome{State: event.StateCompleted}, nil, "content_filter", sdk.StopReasonRefusal, ""},
		{orchestrator.Outcome{State: event.StateCompleted}, nil, "refusal", sdk.StopReasonRefusal, ""},
		{orchestrator.Outcome{State: event.StateFailed, Reason: "provider: 401 unauthorized"}, failed, "", "", "provider: 401 unauthorized"},
	} {
		got, err := stopReason(tc.out, tc.err, tc.lastStop)
		if got != tc.want || (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Fatalf("%+v %v %q: got %q %v", tc.out, tc.err, tc.lastStop, got, err)
		}
	}
}

func TestQuestionsAsPermissionOptions(t *testing.T) {
	q := orchestrator.Question{Question: "Which?", Options: []orchestrator.QuestionOption{{Label: "A", Description: "first"}, {Label: "B"}}}
	sameJSON(t, questionOptions(q, 1, false), `[
		{"optionId":"q1-0","name":"A","kind":"allow_once"},{"optionId":"q1-1","name":"B","kind":"allow_once"},
		{"optionId":"dismiss","name":"Dismiss","kind":"reject_once"}]`)
	sameJSON(t, questionOptions(q, 0, true), `[
		{"optionId":"q0-0","name":"A","kind":"allow_once"},{"optionId":"q0-1","name":"B","kind":"reject_once"}]`)
	if got, ok := optionLabel(q, 1, "q1-1"); !ok || got != "B" {
		t.Fatalf("q1-1 → %q %v", got, ok)
	}
	if _, ok := optionLabel(q, 1, optDismiss); ok {
		t.Fatal("dismiss answered a question")
	}
	if got := questionText(q, 0, 2); got != "[Question 1/2] Which?\n1. A (Recommended) — first\n2. B" {
		t.Fatalf("question text %q", got)
	}
}

// A stored session replays as the updates that showed it: messages,
// thoughts, calls with their outcome (bash output, failures), interrupted
// answers marked, the todo list as the plan.
func TestReplay(t *testing.T) {
	s := &session.Session{ID: "s", Messages: []chat.Message{
		{Role: chat.RoleUser, Content: "fix it\n\n<system-reminder>plan first</system-reminder>"},
		{Role: chat.RoleAssistant, Reasoning: "think", Content: "Running.", ToolCalls: []chat.ToolCall{
			{ID: "b", Name: "bash", Arguments: `{"command":"make"}`},
			{ID: "d", Name: "bash", Arguments: `{"command":"rm -rf /"}`},
		}},
		{Role: chat.RoleTool, ToolCallID: "b", ToolName: "bash", Content: `{"ok":true,"exit_code":0,"stdout":"built\n","stderr":"","duration_ms":5}`},
		{Role: chat.RoleTool, ToolCallID: "d", ToolName: "bash", IsError: true, Content: `{"ok":false,"error":"the user denied this call"}`},
		{Role: chat.RoleAssistant, Content: "Half an ans", Interrupted: true},
	}, Todos: []session.Todo{{ID: "1", Content: "fix", Status: "done"}}}
	sameJSON(t, newMapper("/ws", nil, nil).replay(s), `[
		{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"fix it"}},
		{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"think"}},
		{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Running."}},
		{"sessionUpdate":"tool_call","toolCallId":"b","title":"bash","kind":"other","status":"completed","rawInput":{"command":"make"},
		 "content":[{"type":"content","content":{"type":"text","text":"`+"```console\\nbuilt\\n```\\nexit 0 · 5ms"+`"}}]},
		{"sessionUpdate":"tool_call","toolCallId":"d","title":"bash","kind":"other","status":"failed","rawInput":{"command":"rm -rf /"},
		 "content":[{"type":"content","content":{"type":"text","text":"the user denied this call"}}]},
		{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Half an ans\n\n_(interrupted)_"}},
		{"sessionUpdate":"plan","entries":[{"content":"fix","priority":"medium","status":"completed"}]}]`)
}

func TestRefusedCommands(t *testing.T) {
	for in, refused := range map[string]bool{"/new": true, " /resume abc": true, "/clear": true, "/quit": true, "/exit": true,
		"/newer": false, "/undo": false, "new": false} {
		if got := refusedCommand(in) != ""; got != refused {
			t.Fatalf("%q refused=%v", in, got)
		}
	}
}

// TestDiffLinesThatLookLikeHeaders: inside a hunk, a removed "-- comment"
// (SQL, Lua) reads "--- comment" and an added "++ x" reads "+++ x"; they are
// lines of the hunk, not the next file's headers.
func TestDiffLinesThatLookLikeHeaders(t *testing.T) {
	d := "--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,3 @@\n keep\n--- old comment\n+++ x\n tail\n" +
		"--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n"
	content, _ := diffContent(d, "/ws")
	sameJSON(t, content, `[
		{"type":"diff","path":"/ws/q.sql","oldText":"keep\n-- old comment\ntail\n","newText":"keep\n++ x\ntail\n"},
		{"type":"diff","path":"/ws/b.txt","oldText":"b\n","newText":"B\n"}]`)
}

// TestReplayShowsWhatThePersonWrote: attached files and the core's own
// auto-verify requests are not replayed as the person's words.
func TestReplayShowsWhatThePersonWrote(t *testing.T) {
	s := &session.Session{ID: "s", Messages: []chat.Message{
		{Role: chat.RoleUser, Content: "explain @a.go\n\n[file a.go]\npackage a\n"},
		{Role: chat.RoleUser, Content: "[auto-verify] go test ./... failed: fix it"},
	}}
	sameJSON(t, newMapper("/ws", nil, nil).replay(s), `[
		{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"explain @a.go"}}]`)
}
