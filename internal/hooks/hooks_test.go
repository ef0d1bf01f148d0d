package hooks

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/coder-agent/coder/internal/tools"
)

// claudeNames are the Claude Code names the built-in tools' facts give
// (the orchestrator passes a call's with it); the task tool, the
// orchestrator's, declares "Task".
func claudeNames(t *testing.T) map[string][]string {
	t.Helper()
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fetch, err := tools.NewFetchTool(tools.FetchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]string{tools.Task: {"Task"}}
	for _, tl := range append(tools.Builtins(tools.Env{Workspace: ws}), fetch) {
		m[tl.Name()] = tl.Facts().Claude
	}
	return m
}

func TestMatcherAliases(t *testing.T) {
	aliases := claudeNames(t)
	cases := []struct {
		matcher string
		tool    string
		want    bool
	}{
		{"", "bash", true},
		{"*", "mcp__srv__echo", true},
		{"bash", "bash", true},
		{"Bash", "bash", true},
		{"Bash", "bash_output", false},
		{"BashOutput", "bash_output", true},
		{"Read", "read", true},
		{"Read", "bash", false},
		{"Write", "write", true},
		{"Edit", "edit", true},
		{"Edit", "patch", true},
		{"MultiEdit", "patch", true},
		{"Edit|Write", "write", true},
		{"Edit|Write", "read", false},
		{"Grep", "grep", true},
		{"Glob", "glob", true},
		{"WebFetch", "fetch", true},
		{"Task", "task", true},
		{"mcp__srv__.*", "mcp__srv__echo", true},
		{"mcp__srv__.*", "mcp__other__echo", false},
		{"mcp__srv__echo", "mcp__srv__echo", true},
		{"edit", "editor", false}, // whole-name match, as Claude Code's "Write" is not "WriteFile"
		{"Notebook.*", "bash", false},
	}
	for _, c := range cases {
		g := Group{Matcher: c.matcher}
		if err := g.compile(); err != nil {
			t.Fatal(err)
		}
		if got := g.Matches(c.tool, aliases[c.tool]...); got != c.want {
			t.Errorf("matcher %q on %q = %v, want %v", c.matcher, c.tool, got, c.want)
		}
	}
	if err := CheckMatcher("Bash("); err == nil {
		t.Error("an unbalanced matcher was accepted")
	}
}

func TestParse(t *testing.T) {
	cases := []struct {
		name    string
		ev      Event
		r       raw
		outcome string
		check   func(t *testing.T, o Outcome)
	}{
		{"exit 0 text is shown", PostToolUse, raw{stdout: "formatted\n"}, OutcomeOK, func(t *testing.T, o Outcome) {
			if o.Runs[0].Output != "formatted" || o.Block || len(o.Context) > 0 {
				t.Errorf("%+v", o)
			}
		}},
		{"exit 0 text is context for a prompt", UserPromptSubmit, raw{stdout: "branch: main"}, OutcomeContext, func(t *testing.T, o Outcome) {
			if len(o.Context) != 1 || o.Context[0] != "branch: main" {
				t.Errorf("%+v", o)
			}
		}},
		{"exit 0 text is context at session start", SessionStart, raw{stdout: "hello"}, OutcomeContext, nil},
		{"exit 2 blocks a tool call", PreToolUse, raw{exit: 2, stderr: "no rm\n"}, OutcomeBlocked, func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason != "no rm" || o.Permission != "deny" {
				t.Errorf("%+v", o)
			}
		}},
		{"exit 2 without a message", UserPromptSubmit, raw{exit: 2}, OutcomeBlocked, func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason == "" {
				t.Errorf("%+v", o)
			}
		}},
		{"exit 2 makes a Stop go on", Stop, raw{exit: 2, stderr: "run the tests"}, OutcomeBlocked, nil},
		{"exit 2 at session start is an error", SessionStart, raw{exit: 2, stderr: "oops"}, OutcomeError, func(t *testing.T, o Outcome) {
			if o.Block || o.Runs[0].Reason != "oops" {
				t.Errorf("%+v", o)
			}
		}},
		{"exit 1 is an error that blocks nothing", PreToolUse, raw{exit: 1, stderr: "bad"}, OutcomeError, func(t *testing.T, o Outcome) {
			if o.Block || o.Permission != "" {
				t.Errorf("%+v", o)
			}
		}},
		{"json deny", PreToolUse, raw{stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not here"}}`},
			OutcomeDenied, func(t *testing.T, o Outcome) {
				if o.Permission != "deny" || o.PermissionReason != "not here" || o.Runs[0].Reason != "not here" {
					t.Errorf("%+v", o)
				}
			}},
		{"json ask", PreToolUse, raw{stdout: `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}`}, OutcomeAsked, nil},
		{"json allow with updated input", PreToolUse, raw{stdout: `{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`},
			OutcomeAllowed, func(t *testing.T, o Outcome) {
				if o.Permission != "allow" || string(o.UpdatedInput) != `{"command":"ls"}` {
					t.Errorf("%+v", o)
				}
			}},
		{"old decision block on a tool call", PreToolUse, raw{stdout: `{"decision":"block","reason":"old style"}`}, OutcomeDenied, func(t *testing.T, o Outcome) {
			if o.Permission != "deny" || o.PermissionReason != "old style" {
				t.Errorf("%+v", o)
			}
		}},
		{"json block on Stop", Stop, raw{stdout: `{"decision":"block","reason":"not done"}`}, OutcomeBlocked, func(t *testing.T, o Outcome) {
			if !o.Block || o.Reason != "not done" {
				t.Errorf("%+v", o)
			}
		}},
		{"json block on a prompt", UserPromptSubmit, raw{stdout: `{"decision":"block","reason":"no secrets"}`}, OutcomeBlocked, nil},
		{"json additional context", PostToolUse, raw{stdout: `{"hookSpecificOutput":{"additionalContext":"lint: 2 warnings"}}`}, OutcomeContext, func(t *testing.T, o Outcome) {
			if len(o.Context) != 1 || o.Context[0] != "lint: 2 warnings" {
				t.Errorf("%+v", o)
			}
		}},
		{"continue false stops", PostToolUse, raw{stdout: `{"continue":false,"stopReason":"budget spent"}`}, OutcomeStopped, func(t *testing.T, o Outcome) {
			if !o.Stop || o.StopReason != "budget spent" {
				t.Errorf("%+v", o)
			}
		}},
		{"suppressOutput hides the message", PostToolUse, raw{stdout: `{"systemMessage":"hi","suppressOutput":true}`}, OutcomeOK, func(t *testing.T, o Outcome) {
			if o.Runs[0].Output != "" {
				t.Errorf("%+v", o)
			}
		}},
		{"systemMessage is shown", PostToolUse, raw{stdout: `{"systemMessage":"hi"}`}, OutcomeOK, func(t *testing.T, o Outcome) {
			if o.Runs[0].Output != "hi" {
				t.Errorf("%+v", o)
			}
		}},
		{"broken json is text", PostToolUse, raw{stdout: `{not json`}, OutcomeOK, func(t *testing.T, o Outcome) {
			if o.Runs[0].Output != "{not json" {
				t.Errorf("%+v", o)
			}
		}},
		{"json is not shown as context", UserPromptSubmit, raw{stdout: `{"hookSpecificOutput":{"additionalContext":"ctx"}}`}, OutcomeContext, func(t *testing.T, o Outcome) {
			if len(o.Context) != 1 || o.Context[0] != "ctx" {
				t.Errorf("%+v", o)
			}
		}},
		{"timed out", PreToolUse, raw{exit: 143, timedOut: time.Second}, OutcomeTimedOut, func(t *testing.T, o Outcome) {
			if o.Block || o.Permission != "" {
				t.Errorf("%+v", o)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := merge(c.ev, []Run{parse(c.ev, c.r)})
			if got := o.Runs[0].Outcome; got != c.outcome {
				t.Fatalf("outcome %q, want %q (%+v)", got, c.outcome, o)
			}
			if c.check != nil {
				c.check(t, o)
			}
		})
	}
}

func TestMergeStrictestWins(t *testing.T) {
	allow := parse(PreToolUse, raw{stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"}}`})
	ask := parse(PreToolUse, raw{stdout: `{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"check"}}`})
	deny := parse(PreToolUse, raw{stdout: `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`})
	if o := merge(PreToolUse, []Run{allow, ask}); o.Permission != "ask" || o.PermissionReason != "check" {
		t.Errorf("allow+ask: %+v", o)
	}
	if o := merge(PreToolUse, []Run{deny, allow, ask}); o.Permission != "deny" {
		t.Errorf("deny+allow+ask: %+v", o)
	}
	b1, b2 := parse(Stop, raw{exit: 2, stderr: "one"}), parse(Stop, raw{exit: 2, stderr: "two"})
	if o := merge(Stop, []Run{b1, b2}); !o.Block || o.Reason != "one\ntwo" {
		t.Errorf("two blocks: %+v", o)
	}
}

func newRunner(t *testing.T, groups ...Group) *Runner {
	t.Helper()
	r, err := New(Options{Groups: groups, Launcher: Direct{}, OutputLimit: 1024,
		Transcript: func(id string) string { return "/tmp/" + id + ".json" }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunSendsClaudeInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "in.json")
	r := newRunner(t, Group{Event: PostToolUse, Matcher: "Bash",
		Commands: []Command{{Command: "cat > " + out, Timeout: 10 * time.Second}}})
	o := r.Run(context.Background(), Input{Event: PostToolUse, SessionID: "s1", Cwd: dir, PermissionMode: "build",
		ToolName: "bash", ToolAliases: []string{"Bash"}, ToolUseID: "c1", ToolInput: json.RawMessage(`{"command":"ls"}`),
		ToolResponse: json.RawMessage(`{"ok":true,"stdout":"a\n"}`)})
	if len(o.Runs) != 1 || o.Runs[0].Outcome != OutcomeOK {
		t.Fatalf("%+v", o)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session_id": "s1", "transcript_path": "/tmp/s1.json", "cwd": dir,
		"hook_event_name": "PostToolUse", "tool_name": "bash", "tool_use_id": "c1", "permission_mode": "build"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if ti, _ := got["tool_input"].(map[string]any); ti["command"] != "ls" {
		t.Errorf("tool_input = %v", got["tool_input"])
	}
	if tr, _ := got["tool_response"].(map[string]any); tr["stdout"] != "a\n" {
		t.Errorf("tool_response = %v", got["tool_response"])
	}
	// Other events do not match a tool matcher's group.
	if o := r.Run(context.Background(), Input{Event: PostToolUse, ToolName: "read"}); len(o.Runs) != 0 {
		t.Errorf("a Bash matcher ran for read: %+v", o)
	}
}

func TestRunStopInputAndNoMatcherEvents(t *testing.T) {
	r := newRunner(t, Group{Event: Stop, Matcher: "ignored-for-stop",
		Commands: []Command{{Command: `cat; exit 2`, Timeout: 10 * time.Second}}})
	o := r.Run(context.Background(), Input{Event: Stop, SessionID: "s"})
	if !o.Block {
		t.Fatalf("%+v", o)
	}
	// stdout (the input echoed) is not the reason; stderr is, and it is empty.
	if !strings.Contains(o.Reason, "exit 2") {
		t.Errorf("reason %q", o.Reason)
	}
}

// Hooks of one event run at once, each bounded by its own timeout; a hung
// one is killed with what it started and blocks nothing.
func TestRunParallelWithTimeouts(t *testing.T) {
	dir := t.TempDir()
	r := newRunner(t, Group{Event: PreToolUse, Commands: []Command{
		{Command: "sleep 300 & sleep 300", Timeout: 500 * time.Millisecond},
		{Command: "sleep 1; echo b >" + filepath.Join(dir, "b"), Timeout: 30 * time.Second},
		{Command: "sleep 1; echo c >" + filepath.Join(dir, "c"), Timeout: 30 * time.Second},
	}})
	start := time.Now()
	o := r.Run(context.Background(), Input{Event: PreToolUse, ToolName: "bash"})
	took := time.Since(start)
	if len(o.Runs) != 3 || o.Runs[0].Outcome != OutcomeTimedOut || o.Block || o.Permission != "" {
		t.Fatalf("%+v", o)
	}
	// Serially they would take 2.5 s at least.
	if took > 2400*time.Millisecond {
		t.Errorf("took %s: not run in parallel", took)
	}
	for _, f := range []string{"b", "c"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestRunCapsOutputAndDedupes(t *testing.T) {
	r := newRunner(t,
		Group{Event: PostToolUse, Commands: []Command{{Command: "head -c 100000 /dev/zero | tr '\\0' x", Timeout: 10 * time.Second}}},
		Group{Event: PostToolUse, Matcher: "bash", Commands: []Command{{Command: "head -c 100000 /dev/zero | tr '\\0' x", Timeout: 10 * time.Second}}},
	)
	o := r.Run(context.Background(), Input{Event: PostToolUse, ToolName: "bash"})
	if len(o.Runs) != 1 {
		t.Fatalf("the same command ran %d times", len(o.Runs))
	}
	if n := len(o.Runs[0].Output); n > 1100 || !strings.Contains(o.Runs[0].Output, "output cut at 1024 bytes") {
		t.Errorf("output of %d bytes: %q", n, o.Runs[0].Output[max(0, n-60):])
	}
}

func TestNewRejectsBadMatcher(t *testing.T) {
	_, err := New(Options{Groups: []Group{{Event: PreToolUse, Matcher: "Bash("}}, Launcher: Direct{}})
	if err == nil || !strings.Contains(err.Error(), "PreToolUse") {
		t.Errorf("err = %v", err)
	}
}

// TestCappedOutputStaysValidUTF8: a cut inside a character leaves no
// broken byte sequence in what events and terminals get.
func TestCappedOutputStaysValidUTF8(t *testing.T) {
	w := &capped{limit: 4}
	_, _ = w.Write([]byte("abcé and more")) // é is 2 bytes: the cut splits it
	if s := w.String(); !utf8.ValidString(s) || !strings.HasPrefix(s, "abc") || !strings.Contains(s, "cut at 4 bytes") {
		t.Fatalf("%q", s)
	}
}

// PostToolUseFailure gets Claude Code's fields: the call, its error and
// whether the person interrupted it; exit 2 is feedback for the model.
func TestRunPostToolUseFailureInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "in.json")
	r := newRunner(t, Group{Event: PostToolUseFailure, Matcher: "Bash",
		Commands: []Command{{Command: "cat > " + out + "; echo 'try -v' >&2; exit 2", Timeout: 10 * time.Second}}})
	o := r.Run(context.Background(), Input{Event: PostToolUseFailure, SessionID: "s1", Cwd: dir,
		ToolName: "bash", ToolAliases: []string{"Bash"}, ToolUseID: "c1", ToolInput: json.RawMessage(`{"command":"false"}`),
		Error: "exit code 1", IsInterrupt: true})
	if !o.Block || o.Reason != "try -v" {
		t.Fatalf("%+v", o)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(mustRead(t, out)), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "bash", "tool_use_id": "c1",
		"error": "exit code 1", "is_interrupt": true}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if _, ok := got["tool_response"]; ok {
		t.Errorf("a failure carries tool_response: %v", got)
	}
	if o := r.Run(context.Background(), Input{Event: PostToolUseFailure, ToolName: "read"}); len(o.Runs) != 0 {
		t.Errorf("a Bash matcher ran for read: %+v", o)
	}
}

// recorder is a Launcher that notes which commands it was given.
type recorder struct {
	mu   sync.Mutex
	cmds []string
}

func (l *recorder) RunHook(_ context.Context, command string, _ []byte, _, _ io.Writer) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cmds = append(l.cmds, command)
	return 0, nil
}

// A command that asks for the sandbox goes to the sandboxed launcher, the
// others to the person's.
func TestRunPicksLauncherPerCommand(t *testing.T) {
	outside, inside := &recorder{}, &recorder{}
	r, err := New(Options{Launcher: outside, Sandboxed: inside, Groups: []Group{{Event: Stop, Commands: []Command{
		{Command: "free", Timeout: time.Second}, {Command: "boxed", Timeout: time.Second, Sandbox: true}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r.Run(context.Background(), Input{Event: Stop})
	if !slices.Equal(outside.cmds, []string{"free"}) || !slices.Equal(inside.cmds, []string{"boxed"}) {
		t.Errorf("outside ran %q, the sandbox ran %q", outside.cmds, inside.cmds)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
