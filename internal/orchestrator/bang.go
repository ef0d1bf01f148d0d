package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
)

// bangDisplayLines is how many lines of each stream a [COMMAND] block shows.
const bangDisplayLines = 20

// runBangCommand runs "!cmd" (SPEC §9): no model call; the bash tool goes
// through the same agent check, policy and approval as a model's call; the
// result is appended as a [COMMAND] block the next model call will see.
func (o *Orchestrator) runBangCommand(ctx context.Context, raw string) (Outcome, error) {
	ts := o.newTurnState(raw)
	command := strings.TrimSpace(strings.TrimPrefix(raw, "!"))
	if err := o.appendMessage(ctx, chat.Message{Role: chat.RoleUser, Content: raw}); err != nil {
		return Outcome{State: event.StateFailed, Reason: err.Error()}, err
	}
	// A ! command is a turn for /undo too.
	if err := o.beginUndo(ctx); err != nil {
		return Outcome{State: event.StateFailed, Reason: err.Error()}, err
	}
	defer func() { _ = o.endUndo(ctx) }()
	var block string
	if !o.agent.Enabled("bash") {
		block = "command mode denied: bash disabled by active agent " + o.agent.Name
	} else {
		args, _ := json.Marshal(map[string]string{"command": command})
		call := chat.ToolCall{ID: fmt.Sprintf("bang_%s", ts.runID), Name: "bash", Arguments: string(args)}
		a := o.admit(ctx, ts, call)
		switch {
		case a.refused != nil:
			block = "$ " + command + "\n" + refusalText(a.refused.Content)
		default:
			if err := o.execute(a, ts); err != nil {
				return Outcome{State: event.StateFailed, Reason: err.Error()}, err
			}
			block = FormatCommandBlock(command, a.result.Content)
		}
	}
	o.emit(event.CommandOutput{Command: raw, Text: block, Block: "COMMAND"})
	if err := o.appendMessage(ctx, chat.Message{Role: chat.RoleAssistant, Content: block}); err != nil {
		return Outcome{State: event.StateFailed, Reason: err.Error()}, err
	}
	o.emitContext()
	if err := ctx.Err(); err != nil {
		return Outcome{State: event.StateAborted, Result: block, Reason: "cancelled"}, err
	}
	return Outcome{State: event.StateCompleted, Result: block}, nil
}

// bashResult is the bash tool's JSON result.
type bashResult struct {
	OK         bool   `json:"ok"`
	ExitCode   int    `json:"exit_code"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	Truncated  bool   `json:"truncated"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error"`
}

// FormatCommandBlock renders a bash JSON result as the [COMMAND] block body.
// Only the display is cut to 20 lines per stream; the stored JSON is untouched.
func FormatCommandBlock(command, resultJSON string) string {
	var r bashResult
	if err := json.Unmarshal([]byte(resultJSON), &r); err != nil {
		return "$ " + command + "\n" + resultJSON
	}
	var b strings.Builder
	fmt.Fprintf(&b, "$ %s\nexit=%d duration=%dms", command, r.ExitCode, r.DurationMS)
	if r.Truncated {
		b.WriteString(" (truncated)")
	}
	b.WriteByte('\n')
	if r.Error != "" && r.Stdout == "" && r.Stderr == "" {
		b.WriteString("error: " + r.Error + "\n")
	}
	writeStream(&b, "stdout:", r.Stdout, "...[output truncated for display]")
	writeStream(&b, "stderr:", r.Stderr, "...[error output truncated for display]")
	if r.Stdout == "" && r.Stderr == "" {
		b.WriteString("(no output)\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeStream(b *strings.Builder, header, text, cutNote string) {
	if text == "" {
		return
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	b.WriteString(header + "\n")
	for i, l := range lines {
		if i == bangDisplayLines {
			b.WriteString(cutNote + "\n")
			break
		}
		b.WriteString(l + "\n")
	}
}

// refusalText turns a standard failure JSON into its error text.
func refusalText(content string) string {
	var f struct {
		Error string `json:"error"`
	}
	if json.Unmarshal([]byte(content), &f) == nil && f.Error != "" {
		return f.Error
	}
	return content
}
