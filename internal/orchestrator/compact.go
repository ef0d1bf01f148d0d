package orchestrator

import (
	"context"
	"errors"
	"fmt"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm"
)

// CompactionOptions are compaction's settings (SPEC §13).
type CompactionOptions struct {
	Auto           bool
	Prune          bool
	Threshold      float64
	RecentMessages int
	// Provider writes the summaries; nil means the main provider.
	Provider llm.Provider
}

// contextState is what the context figure is computed from: the usage the
// provider reported for the last call and how many messages existed then.
type contextState struct {
	last      chat.Usage
	lastCount int
	// compacted: this model call already compacted (no second summary call).
	compacted bool
}

func (o *Orchestrator) compactor() *contextmgr.Compactor {
	c := o.opts.Compaction
	prov := c.Provider
	if prov == nil {
		prov = o.opts.Provider
	}
	return &contextmgr.Compactor{
		Provider: prov, Model: o.model, RecentMessages: c.RecentMessages,
		Threshold: c.Threshold, Limit: o.opts.ContextLimit, Prune: c.Prune,
		Overhead: contextmgr.Estimate(o.SystemPrompt(), nil, o.ToolSpecs()),
	}
}

func (o *Orchestrator) pinned() contextmgr.Pinned {
	p := contextmgr.Pinned{LatestRequest: o.latestRequest}
	for _, td := range o.sess.Todos {
		p.Todos = append(p.Todos, contextmgr.Todo{ID: td.ID, Content: td.Content, Status: td.Status})
	}
	return p
}

// maybeCompact runs before every model call of the main agent: when the
// context passes threshold × limit, old history is pruned and summarised.
// A failed compaction is reported and the call goes on uncompacted.
func (o *Orchestrator) maybeCompact(ctx context.Context) error {
	c := o.opts.Compaction
	if !c.Auto || o.opts.TokenBudget > 0 || o.ctx.compacted { // subagents do not compact
		return nil
	}
	tokens := o.ContextTokens()
	if !contextmgr.ShouldCompact(tokens, o.opts.ContextLimit, c.Threshold) {
		return nil
	}
	err := o.applyCompaction(ctx, false)
	if isCancel(err) {
		return err
	}
	if err != nil && !errors.Is(err, contextmgr.ErrNothingToCompact) {
		o.emit(event.Notice{Text: "compaction failed, continuing without it: " + err.Error()})
	}
	return nil
}

// Compact forces a compaction (/compact) and returns the summary.
func (o *Orchestrator) Compact(ctx context.Context) (summary string, err error) {
	if err := o.applyCompaction(ctx, true); err != nil {
		return "", err
	}
	return o.lastSummary, nil
}

// applyCompaction replaces the history with the compacted one and saves it.
func (o *Orchestrator) applyCompaction(ctx context.Context, force bool) error {
	comp := o.compactor()
	var (
		res contextmgr.Result
		err error
	)
	if force {
		res, err = comp.CompactNow(ctx, o.sess.Messages, o.pinned())
	} else {
		res, err = comp.Compact(ctx, o.sess.Messages, o.pinned())
	}
	if err != nil {
		return err
	}
	o.sess.Messages = res.Messages
	o.sess.Generation++
	o.addUsage(res.Usage)
	o.ctx = contextState{compacted: true}
	o.lastSummary = res.Summary
	if err := o.checkpoint(ctx); err != nil {
		return err
	}
	o.emit(event.Compacted{TokensBefore: res.TokensBefore, TokensAfter: res.TokensAfter, Summarized: res.Summary != ""})
	o.emitContext()
	return nil
}

// overflowRetry handles a provider's "context too long": compact now and
// let the caller retry the call once.
func (o *Orchestrator) overflowRetry(ctx context.Context, err error) error {
	o.emit(event.Notice{Text: "the model's context is full; compacting and retrying once"})
	if cerr := o.applyCompaction(ctx, true); cerr != nil {
		return fmt.Errorf("%w (compaction failed: %v)", err, cerr)
	}
	return nil
}
