package headless

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/orchestrator"
)

func feed(p *Printer) {
	p.Emit(event.SessionStarted{SessionID: "s1", Model: "m", Mode: "build", Cwd: "/w", Tools: []string{"read"}})
	p.Emit(event.TextDelta{Text: "Hel"})
	p.Emit(event.Notice{Text: "retrying model call"})
	p.Emit(event.ToolStarted{CallID: "c1", Name: "read", Summary: "a.go", Args: `{"path":"a.go"}`})
	p.Emit(event.ToolFinished{CallID: "c1", Name: "read", Args: `{"path":"a.go"}`, OK: true, Summary: "3 lines"})
	// A refused call never starts; its arguments are still reported.
	p.Emit(event.ToolFinished{CallID: "c2", Name: "bash", Args: `{"command":"rm -rf ~"}`, OK: false, Summary: "denied"})
	p.Emit(event.Error{Message: "boom"})
}

var okOutcome = orchestrator.Outcome{State: event.StateCompleted, Result: "Hello.\n", Steps: 2,
	Usage: chat.Usage{InputTokens: 10, OutputTokens: 3}, Duration: 1500 * time.Millisecond}

func TestTextPrintsAnswerAndNoticesApart(t *testing.T) {
	var out, errb bytes.Buffer
	p := &Printer{Format: Text, Out: &out, Err: &errb}
	feed(p)
	p.Finish(okOutcome, nil)
	if out.String() != "Hello.\n" {
		t.Fatalf("stdout %q", out.String())
	}
	if errb.String() != "coder: retrying model call\n" {
		t.Fatalf("stderr %q", errb.String())
	}
}

func TestJSONResultUsesClaudeCodeNames(t *testing.T) {
	var out, errb bytes.Buffer
	p := &Printer{Format: JSON, Out: &out, Err: &errb}
	feed(p)
	p.Finish(okOutcome, nil)
	// Notices (a weaker sandbox, retries) go to stderr, never into the result.
	if errb.String() != "coder: retrying model call\n" {
		t.Fatalf("stderr %q", errb.String())
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("not one JSON object: %q", out.String())
	}
	want := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": "Hello.\n",
		"session_id": "s1", "num_turns": 2.0, "duration_ms": 1500.0}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if u := m["usage"].(map[string]any); u["input_tokens"] != 10.0 || u["output_tokens"] != 3.0 {
		t.Errorf("usage %v", u)
	}
	calls := m["tool_calls"].([]any)
	if len(calls) != 2 || calls[0].(map[string]any)["args"] != `{"path":"a.go"}` ||
		calls[1].(map[string]any)["args"] != `{"command":"rm -rf ~"}` {
		t.Errorf("tool_calls %v", calls)
	}
}

func TestStreamJSONOneEventPerLine(t *testing.T) {
	var out bytes.Buffer
	p := &Printer{Format: StreamJSON, Out: &out, Err: &out}
	feed(p)
	p.Finish(orchestrator.Outcome{State: event.StateFailed, Reason: "step limit reached"}, orchestrator.ErrStepLimit)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var types []string
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		types = append(types, m["type"].(string))
	}
	if got := strings.Join(types, ","); got != "session,text,notice,tool_start,tool_done,tool_done,error,result" {
		t.Fatalf("types %s", got)
	}
	var last map[string]any
	_ = json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if last["subtype"] != "error_max_turns" || last["is_error"] != true {
		t.Fatalf("result %v", last)
	}
}

func TestResultSubtypes(t *testing.T) {
	p := &Printer{Format: JSON}
	cases := []struct {
		out  orchestrator.Outcome
		err  error
		want string
	}{
		{orchestrator.Outcome{State: event.StateAborted, Reason: "cancelled"}, errors.New("context canceled"), "error_cancelled"},
		{orchestrator.Outcome{State: event.StateFailed, Reason: "openai: HTTP 401"}, errors.New("x"), "error_during_execution"},
		{orchestrator.Outcome{State: event.StateFailed, Reason: "cut"}, &orchestrator.TruncatedError{Reasoning: true}, "error_max_output_tokens"},
	}
	for _, c := range cases {
		if got := p.result(c.out, c.err)["subtype"]; got != c.want {
			t.Errorf("%v: subtype %v, want %s", c.out, got, c.want)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Error("yaml accepted as an output format")
	}
}

// Hook runs are shown like notices in text mode (stderr), and are events
// of their own in stream-json.
func TestHookRunsAreShown(t *testing.T) {
	hook := event.HookRan{Event: "PreToolUse", Tool: "bash", Command: "check.sh", Outcome: "blocked", Reason: "no rm\nin here",
		Output: "see policy.md"}
	var out, errb bytes.Buffer
	p := &Printer{Format: Text, Out: &out, Err: &errb}
	p.Emit(hook)
	if want := "coder: [hook] PreToolUse bash: blocked — no rm / in here\nsee policy.md\n"; errb.String() != want || out.Len() != 0 {
		t.Errorf("stderr %q, stdout %q", errb.String(), out.String())
	}
	out.Reset()
	p = &Printer{Format: StreamJSON, Out: &out, Err: &errb}
	p.Emit(hook)
	want := `{"type":"hook","event":"PreToolUse","tool":"bash","command":"check.sh","outcome":"blocked","reason":"no rm\nin here","output":"see policy.md"}` + "\n"
	if out.String() != want {
		t.Errorf("stream-json %s", out.String())
	}
}

// TestTextShowsControlCharacters: the answer, a notice and the verification
// line reach a terminal with their escapes visible; JSON is left to its
// encoder, which escapes them itself.
func TestTextShowsControlCharacters(t *testing.T) {
	var out, errb bytes.Buffer
	p := &Printer{Format: Text, Out: &out, Err: &errb}
	p.Emit(event.Notice{Text: "note\x1b]0;t\x07"})
	p.Finish(orchestrator.Outcome{State: event.StateCompleted, Result: "line\r\nok\x1b[2K\rfake\n", Verification: "verified\u009b"}, nil)
	if got, want := out.String(), "line\nok\\x1b[2K\\x0dfake\nverified\\u009b\n"; got != want {
		t.Fatalf("stdout %q, want %q", got, want)
	}
	if got, want := errb.String(), "coder: note\\x1b]0;t\\x07\n"; got != want {
		t.Fatalf("stderr %q, want %q", got, want)
	}
	out.Reset()
	j := &Printer{Format: JSON, Out: &out, Err: &errb}
	j.Finish(orchestrator.Outcome{State: event.StateCompleted, Result: "ok\x1b[2K"}, nil)
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || m["result"] != "ok\x1b[2K" || strings.Contains(out.String(), "\x1b") {
		t.Fatalf("json %q (%v)", out.String(), err)
	}
}
