package orchestrator

import (
	"context"
	"errors"
	"fmt"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/tools"
)

// This file is what a turn does when the output limit cut the model's
// answer (finish_reason "length", stop_reason "max_tokens", an incomplete
// Responses answer): never a success. A text answer is continued once;
// otherwise the turn ends with a *TruncatedError.

// ErrTruncated is matched (errors.Is) by every *TruncatedError.
var ErrTruncated = errors.New("the answer was cut by the output limit")

// TruncatedError ends a turn whose answer the output limit cut.
type TruncatedError struct {
	// Reasoning: the model spent the budget reasoning and answered nothing.
	Reasoning bool
	// ToolCalls: the cut fell in the model's tool calls; none was run.
	ToolCalls bool
	// Continued: the answer was already continued once in this turn.
	Continued bool
	// OutputTokens is the output the call used, when reported.
	OutputTokens int
}

func (e *TruncatedError) Error() string {
	used := ""
	if e.OutputTokens > 0 {
		used = fmt.Sprintf(" (%d tokens)", e.OutputTokens)
	}
	switch {
	case e.Reasoning:
		return "the answer was cut by the output limit" + used + ": the model's reasoning used the whole budget before it answered; " +
			"raise provider.max_tokens or lower provider.reasoning.effort"
	case e.ToolCalls:
		return "the answer was cut by the output limit" + used + " in the middle of its tool calls, which were not run; raise provider.max_tokens"
	case e.Continued:
		return "the answer was cut by the output limit" + used + " again after it was asked to continue; raise provider.max_tokens"
	}
	return "the answer was cut by the output limit" + used + "; raise provider.max_tokens"
}

func (e *TruncatedError) Is(target error) bool { return target == ErrTruncated }

// continuePrompt asks for the rest of a cut answer.
const continuePrompt = "Your previous answer was cut off by the output limit. Continue exactly where it stopped, without repeating anything."

// truncationStep runs after every model call. When the call was cut it
// either asks for the rest of a text answer (again: make another call) or
// ends the turn with a *TruncatedError; calls the cut left behind get a
// result saying they did not run, so the history stays valid. When a
// continued answer completes, the turn's result is both parts.
func (o *Orchestrator) truncationStep(ctx context.Context, ts *turnState, msg chat.Message) (again bool, err error) {
	if !llm.Truncated(ts.stop) {
		ts.joinCutText()
		return false, nil
	}
	terr := &TruncatedError{OutputTokens: o.conv.counted.OutputTokens, Continued: ts.continued}
	switch {
	case len(msg.ToolCalls) > 0:
		terr.ToolCalls = true
		for _, tc := range msg.ToolCalls {
			a := &admitted{call: &tools.Call{ID: tc.ID, Name: tc.Name, Raw: tc.Arguments}}
			a.refuse(tools.Failure("not run: the model's answer was cut by the output limit before this call was complete"))
			if err := o.appendResult(ctx, a); err != nil {
				return false, err
			}
		}
	case msg.Content == "" && (msg.Reasoning != "" || len(msg.ReasoningBlocks) > 0):
		terr.Reasoning = true
	case msg.Content != "" && !ts.continued:
		ts.continued = true
		ts.cutText += msg.Content
		return true, o.conv.append(ctx, chat.Message{Role: chat.RoleUser, Content: continuePrompt})
	}
	ts.joinCutText()
	return false, terr
}

// joinCutText puts the cut part of a continued answer before the rest, as
// the turn's result.
func (ts *turnState) joinCutText() {
	if ts.cutText != "" {
		ts.last.Content = ts.cutText + ts.last.Content
		ts.cutText = ""
	}
}
