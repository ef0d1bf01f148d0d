package repl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/repl/render"
	"github.com/coder-agent/coder/internal/repl/style"
)

// The prompt's facts come from the events the REPL passes on, and the
// renderer still draws every one of them.
func TestPromptFactsFromTheEvents(t *testing.T) {
	var out bytes.Buffer
	r := New(Options{Renderer: render.New(&out, style.Style{})})
	r.Emit(event.SessionStarted{SessionID: "s1", Model: "m1", Agent: "build", Mode: "build", Cwd: "/ws"})
	if p := r.prompt.get(); p.Used || p.SessionID != "s1" {
		t.Fatalf("a new session: %+v", p)
	}
	r.Emit(event.ModelChanged{Model: "m2"})
	r.Emit(event.ModeChanged{Agent: "plan", Mode: "plan"})
	r.Emit(event.ContextUpdated{Tokens: 1234, Limit: 128000})
	r.Emit(event.AssistantMessage{Message: chat.Message{Content: "done"}})
	if p := r.prompt.get(); p.Tokens != 1234 || p.Limit != 128000 || p.Agent != "plan" || p.Model != "m2" || p.Cwd != "/ws" || !p.Used {
		t.Errorf("prompt state from the events: %+v", p)
	}
	r.Emit(event.Notice{Text: "drawn too"})
	if !strings.Contains(out.String(), "drawn too") {
		t.Errorf("the renderer did not get the event: %q", out.String())
	}

	for _, tc := range []struct {
		e    event.Event
		used bool
	}{
		{event.SessionStarted{SessionID: "s2", Messages: 3}, true}, // resumed
		{event.CommandOutput{Command: "/model", Text: "model: m"}, false},
		{event.CommandOutput{Command: "! ls", Block: "COMMAND", Text: "$ ls"}, true},
		{event.UserMessage{Text: "hi"}, true},
		{event.TurnFinished{State: event.StateCompleted}, true},
	} {
		var p promptState
		p.observe(event.SessionStarted{SessionID: "s"})
		p.observe(tc.e)
		if p.get().Used != tc.used {
			t.Errorf("%T %+v: used %v, want %v", tc.e, tc.e, p.get().Used, tc.used)
		}
	}
}
