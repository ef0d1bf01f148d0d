package render

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/repl/style"
	"github.com/coder-agent/coder/internal/session"
)

var update = flag.Bool("update", false, "rewrite golden files")

// answerMD is an answer with every Markdown construct the renderer draws
// (the Markdown package's own tests stream the same file).
var answerMD = func() string {
	b, err := os.ReadFile("../markdown/testdata/answer.md")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// prices is a Pricer that knows one model.
type prices struct{}

func (prices) Cost(model string, u chat.Usage) (float64, bool) {
	if model != "m2" {
		return 0, false
	}
	return float64(u.PromptTokens())*2e-6 + float64(u.OutputTokens)*8e-6, true
}

// everyEvent is a session that touches every event kind the renderer draws.
func everyEvent(r *Renderer) {
	r.Emit(event.SessionStarted{SessionID: "s1", Model: "m1", Agent: "build", Mode: "build", Cwd: "/ws"})
	r.Emit(event.Replay{SessionID: "20261122-083000-abcdef", Title: "fix the sign", Messages: 9, Omitted: 2, Entries: []event.ReplayEntry{
		{Role: event.ReplayUser, Text: "fix the failing test\nin calc.go"},
		{Role: event.ReplayTool, Tool: "read", Text: "calc.go", OK: true},
		{Role: event.ReplayTool, Tool: "bash", Text: "go test ./...", OK: false},
		{Role: event.ReplayAnswer, Text: "Fixed **Add**.\n\nOne\nTwo\nThree\nFour\nFive\nSix"},
	}})
	r.Emit(event.Notice{Text: "resumed session 20261122-083000-abcdef (9 messages)"})
	r.Emit(event.ModelChanged{Model: "m2"})
	r.Emit(event.ModeChanged{Agent: "plan", Mode: "plan"})
	r.BeginInput("fix it")
	r.Emit(event.StateChanged{From: event.StateIdle, To: event.StatePreparing})
	r.Emit(event.Attached{Paths: []string{"calc.go", "src"}})
	r.Emit(event.ContextUpdated{Tokens: 1234, Limit: 128000})
	r.Emit(event.ReasoningDelta{Text: "The user wants "})
	r.Emit(event.ReasoningDelta{Text: "a fix, and the thinking is long enough to be wrapped at the narrower width."})
	r.Emit(event.TextDelta{Text: "Let me look "})
	r.Emit(event.TextDelta{Text: "at 中文 files."})
	r.Emit(event.AssistantMessage{Message: chat.Message{Content: "Let me look at 中文 files."}, Usage: chat.Usage{InputTokens: 1000, OutputTokens: 20}})
	r.Emit(event.UsageUpdated{Total: chat.Usage{InputTokens: 1000, OutputTokens: 20}})
	r.Emit(event.ToolStarted{CallID: "1", Name: "read", ToolKind: "read", Summary: "calc.go"})
	r.Emit(event.ToolFinished{CallID: "1", Name: "read", OK: true, Summary: "6 lines"})
	r.Emit(event.ToolStarted{CallID: "g", Name: "grep", ToolKind: "search", Summary: `"Add" in .`})
	r.Emit(event.ToolFinished{CallID: "g", Name: "grep", OK: true, Summary: "5 matches",
		Result: "calc.go:3: func Add(a, b int) int {\ncalc.go:9: x := Add(1, 2)\ncalc_test.go:5: if Add(1, 2) != 3 {\nmain.go:7: Add(3, 4)\nmain.go:8: Add(5, 6)\n"})
	r.Emit(event.ToolStarted{CallID: "2", Name: "edit", ToolKind: "edit", Summary: "calc.go"})
	r.Emit(event.ToolFinished{CallID: "2", Name: "edit", OK: true, Summary: "+1 -1",
		Diff: "--- a/calc.go\n+++ b/calc.go\n@@ -4,3 +4,3 @@\n func Add(a, b int) int {\n-\treturn a - b\n+\treturn a + b\n }\n"})
	r.Emit(event.ToolStarted{CallID: "3", Name: "bash", ToolKind: "execute", Summary: "go test ./..."})
	for i := 1; i <= 12; i++ {
		r.Emit(event.ToolOutput{CallID: "3", Name: "bash", Stream: event.Stdout, Text: fmt.Sprintf("ok line %d\n", i)})
	}
	r.Emit(event.ToolOutput{CallID: "3", Name: "bash", Stream: event.Stdout, Text: "--- FAIL: TestAdd\n    calc_test.go:8: Add(1, 2) = -1, want 3\n"})
	r.Emit(event.ToolOutput{CallID: "3", Name: "bash", Stream: event.Stderr, Text: "exit status 1\n\x1b[31mFAIL\x1b[0m"})
	r.Emit(event.ToolFinished{CallID: "3", Name: "bash", OK: false, Summary: "exit 1 · 2.1s"})
	r.Emit(event.ToolStarted{CallID: "4", Name: "read", ToolKind: "read", Summary: "missing.go"})
	r.Emit(event.ToolFinished{CallID: "4", Name: "read", OK: false, Summary: "missing.go: no such file"})
	r.Emit(event.TodoUpdated{Todos: []session.Todo{{ID: "1", Content: "read the code", Status: "done"},
		{ID: "2", Content: "fix Add", Status: "in_progress"}, {ID: "3", Content: "run the tests", Status: "pending"}}})
	r.Emit(event.UserMessage{Text: "also check Sub"})
	r.Emit(event.Progress{Phase: event.PhaseCompacting})
	r.Emit(event.Compacted{TokensBefore: 102400, TokensAfter: 12345, Summarized: true})
	r.Emit(event.Notice{Text: "retrying model call in 1s (attempt 1)"})
	r.Emit(event.TextDelta{Text: "partial"})
	r.Emit(event.StreamReset{ModelCallIndex: 2})
	for i := 0; i < len(answerMD); i += 7 {
		r.Emit(event.TextDelta{Text: answerMD[i:min(i+7, len(answerMD))]})
	}
	r.Emit(event.AssistantMessage{Message: chat.Message{Content: answerMD, Interrupted: true}, Usage: chat.Usage{InputTokens: 1900, OutputTokens: 400}})
	r.Emit(event.UsageUpdated{Total: chat.Usage{InputTokens: 2900, OutputTokens: 420}})
	r.Emit(event.CommandOutput{Command: "! ls", Block: "COMMAND", Text: "$ ls\nexit=0 duration=3ms\nstdout:\ncalc.go"})
	r.Emit(event.CommandOutput{Command: "/diff", Text: " calc.go | 2 +-\n\n--- a/calc.go\n+++ b/calc.go\n@@ -1 +1 @@\n-a\n+b"})
	r.Emit(event.CommandOutput{Command: "/todos", Text: "[x] 1. read the code\n[~] 2. fix Add\n[ ] 3. run the tests"})
	r.Emit(event.CommandOutput{Command: "/model", Text: "model: fake"})
	r.Emit(event.CommandOutput{Command: "! false", Block: "COMMAND", Text: "$ false\nexit=1 duration=2ms\n(no output)"})
	r.Emit(event.CommandOutput{Command: "exit_plan_mode", Block: "PLAN", Text: "# Plan\n\n1. **create** `store.go`\n2. test it"})
	r.Emit(event.CommandOutput{Command: "/tools", Text: "Tools in build mode:\n  read   Read a text file. Output is numbered like `cat -n` (line number, tab, line); use the numbers to cite lines, never copy them into edits."})
	r.Emit(event.Error{Message: "openai: HTTP 401: invalid key"})
	r.Emit(event.TurnFinished{State: event.StateCompleted, Steps: 3, Duration: 1234 * time.Millisecond,
		Usage: chat.Usage{InputTokens: 2800, CacheReadTokens: 100, OutputTokens: 420}, Verification: "verified: go test ./... (exit 0)"})
	r.Cancelled()
}

func TestRendererGolden(t *testing.T) {
	for _, tc := range []struct {
		name     string
		color    bool
		width    int
		markdown bool
	}{
		{"raw-color", true, 0, true}, {"raw-plain", false, 0, true},
		{"color-60", true, 60, true}, {"plain-60", false, 60, true},
		{"color-120", true, 120, true}, {"plain-120", false, 120, true},
		{"nomarkdown-60", true, 60, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			r := New(&b, style.Style{Color: tc.color})
			o := Options{Markdown: tc.markdown, Prices: prices{}}
			if tc.width > 0 {
				o.Width = func() int { return tc.width }
			}
			r.Configure(o)
			everyEvent(r)
			golden(t, filepath.Join("testdata", tc.name+".golden"), b.Bytes())
			if tc.width > 0 {
				// The answer is wrapped to the width (code lines are kept whole).
				answer := b.String()[strings.LastIndex(b.String(), "[ANSWER]"):strings.Index(b.String(), "[COMMAND]")]
				for _, l := range strings.Split(answer, "\n") {
					if w := style.Width(l); w > tc.width {
						t.Errorf("a row of %d cells at width %d: %q", w, tc.width, l)
					}
				}
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

// A turn stopped mid-stream has no usage from the provider: the end line
// estimates what streamed instead of saying "out 0".
func TestInterruptedTurnEstimatesOutput(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, style.Style{})
	r.BeginInput("talk")
	r.Emit(event.TextDelta{Text: strings.Repeat("word ", 80)})
	r.Emit(event.AssistantMessage{Message: chat.Message{Interrupted: true}})
	r.Emit(event.TurnFinished{State: event.StateAborted, Steps: 1, Duration: time.Second})
	if !strings.Contains(b.String(), "1 step · 1s · out ~100 (interrupted, estimated)") {
		t.Fatalf("%s", b.String())
	}
}

func TestHookRunRendered(t *testing.T) {
	var b bytes.Buffer
	r := New(&b, style.Style{})
	r.Emit(event.HookRan{Event: "PreToolUse", Tool: "bash", Command: "check.sh", Outcome: "blocked", Reason: "no rm"})
	r.Emit(event.HookRan{Event: "SessionStart", Command: "start.sh", Outcome: "ok", Output: "welcome\x1b[31m"})
	r.Emit(event.Subagent{ID: "s1", Agent: "explore", Event: event.HookRan{Event: "SubagentStop", Command: "x", Outcome: "error", Reason: "exit 1"}})
	want := "[hook] PreToolUse bash: blocked — no rm\n[hook] SessionStart: ok\nwelcome"
	if got := b.String(); !strings.HasPrefix(got, want) || !strings.Contains(got, "[task s1] [hook] SubagentStop: error — exit 1") {
		t.Errorf("rendered %q", got)
	}
	if strings.Contains(b.String(), "\x1b[31m") {
		t.Error("a hook's output reached the terminal unsanitized")
	}
}
