package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

// turnState is everything one turn knows, passed explicitly between the
// pipeline steps so each step can be tested alone.
type turnState struct {
	runID   string
	input   string
	images  []chat.Image // given with the request (Prompt.Images)
	started time.Time
	state   event.RunState

	// modelCalls counts model calls made in this turn (the step count).
	modelCalls int
	maxSteps   int
	usage      chat.Usage
	// last is the latest committed assistant message; stop is its stop
	// reason.
	last chat.Message
	stop string
	// continued: a cut answer was continued in this turn; cutText holds
	// its first part until the rest arrives (truncation.go).
	continued bool
	cutText   string
	// edited lists the paths write/edit/patch changed in this turn.
	edited []string
	// verifyAttempts counts auto-verify runs; verification is the line the
	// turn ends with, written from what the orchestrator observed.
	verifyAttempts int
	verification   string
	// stopHookActive: a Stop hook already made the model go on this turn.
	stopHookActive bool
	// schemaTries counts answers sent back for not matching the output
	// schema; structured is the answer that matched (schema.go).
	schemaTries int
	structured  []byte
}

// RunTurn runs a normal turn: prepare, then model calls and tool calls until
// the model stops calling tools or max_steps is reached, then persist.
func (o *Orchestrator) RunTurn(ctx context.Context, input string) (Outcome, error) {
	return o.runTurn(ctx, Prompt{Text: input})
}

func (o *Orchestrator) runTurn(ctx context.Context, p Prompt) (Outcome, error) {
	ts := o.newTurnState(p.Text)
	ts.images = p.Images
	err := o.prepareTurnState(ctx, ts)
	if err == nil {
		err = o.loop(ctx, ts)
	}
	return o.finishTurn(ctx, ts, err)
}

func (o *Orchestrator) newTurnState(input string) *turnState {
	o.runs++
	o.subs.resetTurn()
	max := o.opts.Limits.MaxSteps
	if o.agent.MaxSteps > 0 {
		max = o.agent.MaxSteps
	}
	return &turnState{
		runID:    fmt.Sprintf("%s-r%d", o.conv.sess.ID, o.runs),
		input:    input,
		started:  o.opts.Now(),
		state:    event.StateIdle,
		maxSteps: max,
	}
}

// prepareTurnState appends the user message and refreshes the context figures.
func (o *Orchestrator) prepareTurnState(ctx context.Context, ts *turnState) error {
	o.setState(ts, event.StatePreparing)
	o.emit(event.TurnStarted{RunID: ts.runID, Input: ts.input})
	imgs, err := o.turnImages(ts.input, ts.images)
	if err != nil {
		return err
	}
	o.LoadLazyTools(ctx)
	if !o.hookStarted {
		o.sessionStartHooks(ctx, "startup")
	}
	extra, err := o.promptHooks(ctx, ts.input)
	if err != nil {
		return err
	}
	if len(o.pendingContext) > 0 {
		extra = hookContext(o.pendingContext) + extra
		o.pendingContext = nil
	}
	o.conv.setTitle(ts.input)
	expanded, attached, missing := contextmgr.ExpandAtRefs(ts.input, o.opts.Workspace, contextmgr.AtLimits{})
	if len(attached) > 0 {
		o.emit(event.Attached{Paths: attached})
	}
	for _, m := range missing {
		o.emit(event.Notice{Text: "not attached: @" + m})
	}
	o.conv.latestInput = ts.input
	content := expanded + o.todoReminder(ts.input) + o.schemaReminder() + extra
	// The turn's number (its undo snapshot's) goes on its message.
	turn, err := o.beginUndo(ctx)
	if err != nil {
		return err
	}
	if err := o.conv.append(ctx, chat.Message{Role: chat.RoleUser, Content: content, Images: imgs, Turn: turn}); err != nil {
		return err
	}
	o.emitContext()
	return ctx.Err()
}

// todoReminder is appended to a complex input (see isComplexTask): where
// todowrite is enabled the model is told to plan first; otherwise the
// unfinished todo list (e.g. written in plan mode) is shown again.
func (o *Orchestrator) todoReminder(input string) string {
	if !o.opts.Workflow.RequireTodoForComplex || !isComplexTask(input) {
		return ""
	}
	if o.enabled(tools.TodoWrite) {
		return "\n\n<system-reminder>This task has several steps: first write a todo plan with todowrite, then work through it, keeping the list current.</system-reminder>"
	}
	todos := o.conv.todos()
	for _, td := range todos {
		if td.Status != session.TodoDone {
			return "\n\n<system-reminder>Current todo list:\n" + session.FormatTodos(todos) + "\n</system-reminder>"
		}
	}
	return ""
}

// beginUndo opens the turn's undo snapshot and numbers the turn, above
// every turn the history holds: nothing is captured before its message is
// stored (the snapshot rows need the session's row).
func (o *Orchestrator) beginUndo(ctx context.Context) (turn int, err error) {
	last := o.conv.lastTurn()
	if o.opts.Persistence.Undo == nil {
		return last + 1, nil
	}
	turn, err = o.opts.Persistence.Undo.BeginTurnAbove(context.WithoutCancel(ctx), o.conv.sess.ID, last)
	if err != nil {
		return 0, &StorageError{Err: err}
	}
	return turn, nil
}

func (o *Orchestrator) endUndo(ctx context.Context) error {
	if o.opts.Persistence.Undo == nil {
		return nil
	}
	if err := o.opts.Persistence.Undo.EndTurn(context.WithoutCancel(ctx)); err != nil {
		return &StorageError{Err: err}
	}
	return nil
}

// loop is the agent loop: at most maxSteps model calls.
func (o *Orchestrator) loop(ctx context.Context, ts *turnState) error {
	for ts.modelCalls < ts.maxSteps {
		o.ApplyRequestedAgent()
		if err := o.deliverInbox(ctx); err != nil {
			return err
		}
		if err := o.checkBudget(); err != nil {
			return err
		}
		msg, err := o.chatStep(ctx, ts)
		if err != nil {
			return err
		}
		again, err := o.truncationStep(ctx, ts, msg)
		if err != nil {
			return err
		}
		if again {
			continue
		}
		if b := o.opts.Limits.TokenBudget; b > 0 && ts.usage.PromptTokens()+ts.usage.OutputTokens > b {
			return ErrTokenBudget
		}
		if len(msg.ToolCalls) == 0 {
			again, err := o.autoVerifyStep(ctx, ts)
			if err == nil && !again {
				again, err = o.stopHooks(ctx, ts)
			}
			if err == nil && !again {
				again, err = o.schemaStep(ctx, ts)
			}
			if err != nil || !again {
				return err
			}
			continue
		}
		if err := o.toolLoopStep(ctx, ts, msg.ToolCalls); err != nil {
			return err
		}
		if o.rebuild != "" {
			if err := o.applyRebuild(ctx); err != nil {
				return err
			}
		}
	}
	return ErrStepLimit
}

// finishTurn is the persist step: it settles the final state, flushes the
// session and reports the outcome.
func (o *Orchestrator) finishTurn(ctx context.Context, ts *turnState, err error) (Outcome, error) {
	var stop *hookStop
	if errors.As(err, &stop) {
		o.emit(event.Notice{Text: stop.Error()})
		err = nil
	}
	out := Outcome{Result: ts.last.Content, Steps: ts.modelCalls, Usage: ts.usage, Verification: ts.verification,
		Spend: o.RunSpend(), Structured: ts.structured}
	if isCancel(err) && ts.verifyAttempts > 0 && !verified(ts.verification) {
		out.Verification = "not verified: cancelled"
	}
	switch {
	case err == nil:
		out.State = event.StateCompleted
	case isCancel(err):
		out.State, out.Reason = event.StateAborted, "cancelled"
	default:
		out.State, out.Reason = event.StateFailed, err.Error()
	}
	// After a failed write the store is not asked again: a locked or full
	// store would only make the failure wait (or fail) twice.
	var serr *StorageError
	if !errors.As(err, &serr) {
		if uerr := o.endUndo(ctx); uerr != nil && err == nil {
			err, out.State, out.Reason = uerr, event.StateFailed, uerr.Error()
		}
		// Messages were saved as they were appended; save again only what
		// changed since (usage, todos, mode).
		if perr := o.conv.saveIfChanged(ctx); perr != nil && err == nil {
			err, out.State, out.Reason = perr, event.StateFailed, perr.Error()
		}
	}
	if out.State == event.StateFailed {
		o.emit(event.Error{Message: out.Reason})
	}
	o.setState(ts, out.State)
	out.Duration = o.opts.Now().Sub(ts.started)
	o.emit(event.TurnFinished{
		RunID: ts.runID, State: out.State, Result: out.Result, Reason: out.Reason,
		Steps: out.Steps, Usage: out.Usage, Duration: out.Duration, Verification: out.Verification,
	})
	o.emitContext()
	return out, err
}

func (o *Orchestrator) setState(ts *turnState, to event.RunState) {
	if ts.state == to {
		return
	}
	o.emit(event.StateChanged{RunID: ts.runID, From: ts.state, To: to})
	ts.state = to
}

func verified(line string) bool { return strings.HasPrefix(line, "verified:") }

// isCancel reports a cancelled or timed-out context error.
func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
