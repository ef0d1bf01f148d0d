package orchestrator

import (
	"context"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/input"
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
	// Verification is the orchestrator's own verification line, written
	// from what it observed (see autoVerifyStep).
	Verification string
	// Spend is what this run's model calls have cost so far, per model
	// (RunSpend): a -p run's total.
	Spend Spend
	// Structured is the final answer as compact JSON when it matched the
	// output schema (Workflow.OutputSchema).
	Structured []byte
}

// RunInput runs one input: a leading ! is command mode, anything else a
// normal turn; empty input does nothing. / commands are not the core's:
// the commands package dispatches them before they get here. The error is
// non-nil when the run failed or was cancelled; cancellation returns
// ctx.Err() itself.
func (o *Orchestrator) RunInput(ctx context.Context, typed string) (Outcome, error) {
	switch line := input.Parse(typed); line.Kind {
	case input.Empty:
		return Outcome{State: event.StateIdle}, nil
	case input.Shell:
		return o.runBangCommand(ctx, line)
	default:
		return o.RunTurn(ctx, line.Text)
	}
}
