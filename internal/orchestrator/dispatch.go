package orchestrator

import (
	"context"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
)

// Outcome is how an input ended.
type Outcome struct {
	State event.RunState
	// Result is the final answer text of a turn, or a command's output.
	Result string
	// Reason says why a run failed or was aborted.
	Reason   string
	Steps    int
	Usage    chat.Usage
	Duration time.Duration
	// Verification is the orchestrator's verification line (SPEC §11).
	Verification string
}

// RunInput dispatches one input (SPEC §4): a leading / is a built-in command,
// else a leading ! is command mode, else a normal turn. Empty input does
// nothing. The error is non-nil when the run failed or was cancelled;
// cancellation returns ctx.Err() itself.
func (o *Orchestrator) RunInput(ctx context.Context, input string) (Outcome, error) {
	in := strings.TrimSpace(input)
	switch {
	case in == "":
		return Outcome{State: event.StateIdle}, nil
	case strings.HasPrefix(in, "/"):
		return o.runSlashCommand(ctx, in)
	case strings.HasPrefix(in, "!"):
		return o.runBangCommand(ctx, in)
	default:
		return o.RunTurn(ctx, in)
	}
}
