package repl

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/session"
)

var update = flag.Bool("update", false, "rewrite golden files")

// everyEvent is a turn that touches every event kind the renderer draws.
func everyEvent(r *Renderer) {
	r.Emit(event.SessionStarted{SessionID: "20261122-083000-abcdef", Resumed: true})
	r.Emit(event.SessionStarted{SessionID: "s1", Model: "m1", Agent: "build", Mode: "build", Cwd: "/ws"})
	r.Emit(event.ModelChanged{Model: "m2"})
	r.Emit(event.ModeChanged{Agent: "plan", Mode: "plan"})
	r.Emit(event.StateChanged{From: event.StateIdle, To: event.StatePreparing})
	r.Emit(event.ContextUpdated{Tokens: 1234, Limit: 128000})
	r.Emit(event.ReasoningDelta{Text: "The user wants "})
	r.Emit(event.ReasoningDelta{Text: "a fix."})
	r.Emit(event.TextDelta{Text: "Let me look "})
	r.Emit(event.TextDelta{Text: "at 中文 files."})
	r.Emit(event.AssistantMessage{Message: chat.Message{Content: "Let me look at 中文 files."}})
	r.Emit(event.ToolStarted{CallID: "1", Name: "read", Summary: "calc.go"})
	r.Emit(event.ToolFinished{CallID: "1", Name: "read", OK: true, Summary: "6 lines"})
	r.Emit(event.ToolStarted{CallID: "2", Name: "edit", Summary: "calc.go"})
	r.Emit(event.ToolFinished{CallID: "2", Name: "edit", OK: true, Summary: "+1 -1",
		Diff: "--- a/calc.go\n+++ b/calc.go\n@@ -4,3 +4,3 @@\n func Add(a, b int) int {\n-\treturn a - b\n+\treturn a + b\n }\n"})
	r.Emit(event.ToolStarted{CallID: "3", Name: "read", Summary: "missing.go"})
	r.Emit(event.ToolFinished{CallID: "3", Name: "read", OK: false, Summary: "missing.go: no such file"})
	r.Emit(event.TodoUpdated{Todos: []session.Todo{{ID: "1", Content: "read the code", Status: "done"},
		{ID: "2", Content: "fix Add", Status: "in_progress"}, {ID: "3", Content: "run the tests", Status: "pending"}}})
	r.Emit(event.Notice{Text: "retrying model call in 1s (attempt 1)"})
	r.Emit(event.TextDelta{Text: "partial"})
	r.Emit(event.StreamReset{ModelCallIndex: 2})
	r.Emit(event.TextDelta{Text: "Fixed."})
	r.Emit(event.AssistantMessage{Message: chat.Message{Content: "Fixed.", Interrupted: true}})
	r.Emit(event.CommandOutput{Command: "! ls", Block: "COMMAND", Text: "$ ls\nexit=0 duration=3ms\nstdout:\ncalc.go"})
	r.Emit(event.CommandOutput{Command: "/model", Text: "model: fake"})
	r.Emit(event.Error{Message: "openai: HTTP 401: invalid key"})
	r.Emit(event.TurnFinished{State: event.StateCompleted, Steps: 3, Duration: 1234 * time.Millisecond,
		Usage: chat.Usage{InputTokens: 900, CacheReadTokens: 100, OutputTokens: 42}, Verification: "verified: go test ./... (exit 0)"})
	r.Cancelled()
}

func TestRendererGolden(t *testing.T) {
	for _, color := range []bool{true, false} {
		name := map[bool]string{true: "color.golden", false: "plain.golden"}[color]
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			r := NewRenderer(&b, Style{Color: color})
			everyEvent(r)
			golden(t, filepath.Join("testdata", name), b.Bytes())
			if p := r.Prompt(); p.Tokens != 1234 || p.Limit != 128000 || p.Agent != "plan" || p.Model != "m2" || p.Cwd != "/ws" {
				t.Errorf("prompt state from the events: %+v", p)
			}
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestColorEnabled(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	cases := []struct {
		setting string
		tty     bool
		env     func(string) (string, bool)
		want    bool
	}{
		{"auto", true, env(), true},
		{"auto", false, env(), false},
		{"auto", true, env("NO_COLOR", ""), false},
		{"auto", true, env("TERM", "dumb"), false},
		{"always", false, env("NO_COLOR", "1"), true},
		{"never", true, env(), false},
	}
	for _, c := range cases {
		if got := ColorEnabled(c.setting, c.tty, c.env); got != c.want {
			t.Errorf("%+v: got %v", c, got)
		}
	}
}
