package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/input"
	"github.com/coder-agent/coder/internal/tools"
)

// bangDisplayLines is how many lines of each stream a [COMMAND] block shows.
const bangDisplayLines = 20

// runBangCommand runs "!cmd": no model call; the bash tool goes through the
// same agent check, policy and approval as a model's call; the result is
// appended as a [COMMAND] block the next model call will see.
func (o *Orchestrator) runBangCommand(ctx context.Context, line input.Line) (Outcome, error) {
	ts := o.newTurnState(line.Text)
	command := line.Args
	failed := func(err error) (Outcome, error) {
		return Outcome{State: event.StateFailed, Reason: err.Error()}, err
	}
	// A ! command is a turn for /undo and /rewind too.
	turn, err := o.beginUndo(ctx)
	if err != nil {
		return failed(err)
	}
	defer func() { _ = o.endUndo(ctx) }()
	if err := o.conv.append(ctx, chat.Message{Role: chat.RoleUser, Content: line.Text, Turn: turn}); err != nil {
		return failed(err)
	}
	var block string
	if !o.enabled(tools.Bash) {
		block = "command mode denied: bash disabled by active agent " + o.agent.Name
	} else {
		a := o.admit(ctx, ts, o.bashCall(fmt.Sprintf("bang_%s", ts.runID), command))
		switch {
		case a.refused != nil:
			block = "$ " + command + "\n" + a.refused.Summary
		default:
			if err := o.execute(ctx, a, ts); err != nil {
				return failed(err)
			}
			block = FormatCommandBlock(command, *a.result)
		}
	}
	o.emit(event.CommandOutput{Command: line.Text, Text: block, Block: "COMMAND"})
	if err := o.conv.append(ctx, chat.Message{Role: chat.RoleAssistant, Content: block}); err != nil {
		return failed(err)
	}
	o.emitContext()
	if err := ctx.Err(); err != nil {
		return Outcome{State: event.StateAborted, Result: block, Reason: "cancelled"}, err
	}
	return Outcome{State: event.StateCompleted, Result: block}, nil
}

// bashCall is a bash call the core makes itself (! mode, auto-verify).
func (o *Orchestrator) bashCall(id, command string) *tools.Call {
	args, _ := json.Marshal(tools.BashArgs{Command: command})
	return o.decode(chat.ToolCall{ID: id, Name: tools.Bash, Arguments: string(args)})
}

// FormatCommandBlock renders a bash result as the [COMMAND] block body.
// Only the display is cut to 20 lines per stream; the stored JSON is untouched.
func FormatCommandBlock(command string, res tools.Result) string {
	r := res.Bash
	if r == nil {
		return "$ " + command + "\n" + res.Summary
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
