package orchestrator

import (
	"context"
	"errors"
	"fmt"

	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/hooks"
	"github.com/coder-agent/coder/internal/llm"
)

// CompactionOptions are compaction's settings: prune old tool output, then
// summarise the older history once the context passes threshold × limit.
type CompactionOptions struct {
	Auto           bool
	Prune          bool
	Threshold      float64
	RecentMessages int
	// Provider writes the summaries; nil means the main provider.
	Provider llm.Provider
}

func (o *Orchestrator) compactor(instructions string) *contextmgr.Compactor {
	c := o.opts.Compaction
	prov := c.Provider
	if prov == nil {
		prov = o.opts.Model.Provider
	}
	return &contextmgr.Compactor{
		Provider: prov, Model: o.model, RecentMessages: c.RecentMessages,
		Threshold: c.Threshold, Limit: o.opts.Limits.ContextLimit, Prune: c.Prune,
		Overhead: o.overhead(), Instructions: instructions,
	}
}

func (o *Orchestrator) pinned() contextmgr.Pinned {
	return contextmgr.Pinned{LatestRequest: o.conv.latestInput, Todos: o.conv.todos()}
}

// maybeCompact runs before every model call of the main agent: when the
// context passes threshold × limit, old history is pruned and summarised.
// A failed compaction is reported and the call goes on uncompacted.
func (o *Orchestrator) maybeCompact(ctx context.Context) error {
	c := o.opts.Compaction
	if !c.Auto || o.opts.Limits.TokenBudget > 0 || o.conv.compacted { // subagents do not compact
		return nil
	}
	tokens := o.contextTokens()
	if !contextmgr.ShouldCompact(tokens, o.opts.Limits.ContextLimit, c.Threshold) {
		return nil
	}
	err := o.applyCompaction(ctx, compactRequest{})
	if isCancel(err) {
		return err
	}
	if err != nil && !errors.Is(err, contextmgr.ErrNothingToCompact) {
		o.emit(event.Notice{Text: "compaction failed, continuing without it: " + err.Error()})
	}
	return nil
}

// Compaction is what a forced compaction did.
type Compaction struct {
	TokensBefore, TokensAfter int
	Summary                   string
}

// Compact forces a compaction (/compact), the person's instructions (its
// arguments, maybe none) telling the summary what to keep.
func (o *Orchestrator) Compact(ctx context.Context, instructions string) (Compaction, error) {
	before := o.contextTokens()
	if err := o.applyCompaction(ctx, compactRequest{manual: true, force: true, instructions: instructions}); err != nil {
		return Compaction{}, err
	}
	return Compaction{TokensBefore: before, TokensAfter: o.contextTokens(), Summary: o.lastSummary}, nil
}

// compactRequest is one compaction: a person's /compact (manual, between
// turns) or coder's own (auto, in a turn, forced when the provider said
// the context overflowed).
type compactRequest struct {
	manual, force bool
	instructions  string
}

// trigger is Claude Code's name for who asked.
func (r compactRequest) trigger() string {
	if r.manual {
		return "manual"
	}
	return "auto"
}

// applyCompaction replaces the history with the compacted one and saves
// it, between the PreCompact hooks and the SessionStart hooks of source
// "compact" (Claude Code's order), whose context joins the new history.
func (o *Orchestrator) applyCompaction(ctx context.Context, r compactRequest) error {
	o.runHooks(ctx, hooks.Input{Event: hooks.PreCompact, Trigger: r.trigger(), CustomInstructions: r.instructions})
	o.emit(event.Progress{Phase: event.PhaseCompacting})
	comp := o.compactor(r.instructions)
	var (
		res contextmgr.Result
		err error
	)
	if r.force {
		res, err = comp.CompactNow(ctx, o.conv.messages(), o.pinned())
	} else {
		res, err = comp.Compact(ctx, o.conv.messages(), o.pinned())
	}
	if err != nil {
		return err
	}
	o.conv.addUsage(res.Usage)
	o.lastSummary = res.Summary
	if err := o.conv.replace(ctx, res.Messages, true); err != nil {
		return err
	}
	o.emit(event.Compacted{TokensBefore: res.TokensBefore, TokensAfter: res.TokensAfter, Summarized: res.Summary != ""})
	o.sessionStartHooks(ctx, "compact")
	if !r.manual {
		// In a turn: the model's next call must carry it, not the next input.
		if err := o.deliverPendingContext(ctx); err != nil {
			return err
		}
	}
	o.emitContext()
	return nil
}

// overflowRetry handles a provider's "context too long": compact now and
// let the caller retry the call once.
func (o *Orchestrator) overflowRetry(ctx context.Context, err error) error {
	o.emit(event.Notice{Text: "the model's context is full; compacting and retrying once"})
	if cerr := o.applyCompaction(ctx, compactRequest{force: true}); cerr != nil {
		return fmt.Errorf("%w (compaction failed: %v)", err, cerr)
	}
	return nil
}
