package orchestrator

import (
	"context"
	"fmt"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/session"
)

// chatStep streams one model call, emitting text and reasoning as they arrive,
// and commits the assistant message. A cancelled stream commits what arrived,
// marked interrupted, and returns the context error.
func (o *Orchestrator) chatStep(ctx context.Context, ts *turnState) (chat.Message, error) {
	if err := o.maybeCompact(ctx); err != nil {
		return chat.Message{}, err
	}
	o.setState(ts, event.StateModelRunning)
	ts.modelCalls++
	msg, err := o.stream(ctx, ts)
	if err != nil && llm.IsContextOverflow(err) && ctx.Err() == nil {
		if cerr := o.overflowRetry(ctx, err); cerr != nil {
			return chat.Message{}, cerr
		}
		msg, err = o.stream(ctx, ts)
	}
	o.conv.compacted = false
	return msg, err
}

// stream makes one model call and commits its message.
func (o *Orchestrator) stream(ctx context.Context, ts *turnState) (chat.Message, error) {
	req := llm.Request{
		RunID:          ts.runID,
		ModelCallIndex: ts.modelCalls,
		Model:          o.model,
		System:         o.SystemPrompt(),
		Messages:       o.conv.messages(),
		Tools:          o.ToolSpecs(),
		MaxTokens:      o.opts.Model.MaxTokens,
	}
	var acc llm.Accumulator
	streamCtx, stop := context.WithCancel(ctx)
	defer stop()
	size, tooLarge := 0, false
	limit := o.opts.Limits.MaxResponseBytes
	err := o.opts.Model.Provider.Stream(streamCtx, req, func(d chat.MessageDelta) {
		acc.Add(d) // the retry layer dropped any replayed delta
		if size += len(d.Text); limit > 0 && size > limit && !tooLarge {
			tooLarge = true
			stop()
		}
		switch d.Kind {
		case chat.DeltaText:
			o.emit(event.TextDelta{Text: d.Text})
		case chat.DeltaReasoning:
			o.emit(event.ReasoningDelta{Text: d.Text})
		case chat.DeltaReset:
			size = 0
			o.emit(event.StreamReset{ModelCallIndex: ts.modelCalls})
		}
	})
	if tooLarge && ctx.Err() == nil {
		return chat.Message{}, fmt.Errorf("the model's response passed %d bytes (runtime.max_response_bytes); it was stopped and not kept", limit)
	}
	if err != nil {
		if ctx.Err() != nil {
			return chat.Message{}, o.commitInterrupted(ctx, &acc)
		}
		return chat.Message{}, err
	}
	msg := acc.Message()
	assignCallIDs(&msg, ts)
	usage := acc.Usage()
	ts.usage.Add(usage)
	o.conv.addUsage(usage)
	ts.last, ts.stop = msg, acc.StopReason()
	if err := o.conv.append(ctx, msg); err != nil {
		return chat.Message{}, err
	}
	// The provider counted everything up to and including this message.
	o.conv.modelCounted(usage)
	if err := o.recordUsage(ctx, ts, session.UsageRecord{Usage: usage}); err != nil {
		return chat.Message{}, err
	}
	o.emit(event.AssistantMessage{ModelCallIndex: ts.modelCalls, Message: msg, Usage: usage, StopReason: acc.StopReason()})
	o.spend(usage)
	return msg, nil
}

// commitInterrupted keeps the partial answer of a cancelled stream. Its tool
// calls are dropped: they were never complete, and never run.
func (o *Orchestrator) commitInterrupted(ctx context.Context, acc *llm.Accumulator) error {
	msg := acc.Message()
	msg.ToolCalls = nil
	if msg.Content != "" || msg.Reasoning != "" {
		msg.Interrupted = true
		if err := o.conv.append(ctx, msg); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// assignCallIDs names tool calls a provider left without an id or gave an id
// already used in the same message, so every result matches one call.
func assignCallIDs(m *chat.Message, ts *turnState) {
	seen := make(map[string]bool, len(m.ToolCalls))
	for i := range m.ToolCalls {
		if id := m.ToolCalls[i].ID; id == "" || seen[id] {
			m.ToolCalls[i].ID = fmt.Sprintf("call_%s_%d_%d", ts.runID, ts.modelCalls, i)
		}
		seen[m.ToolCalls[i].ID] = true
	}
}
