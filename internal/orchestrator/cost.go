package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/session"
)

// ModelSpend is what one model's calls used and cost.
type ModelSpend struct {
	Model string
	Usage chat.Usage
	Calls int
	// CostUSD is the usage priced from the model catalog; Priced is false
	// when the catalog has no price for the model (CostUSD is then 0).
	CostUSD float64
	Priced  bool
}

// Spend is usage and cost model by model, in the order first used.
type Spend []ModelSpend

// TotalUSD is the cost of the priced models.
func (s Spend) TotalUSD() float64 {
	t := 0.0
	for _, m := range s {
		t += m.CostUSD
	}
	return t
}

// Complete reports whether every model's price is known.
func (s Spend) Complete() bool {
	for _, m := range s {
		if !m.Priced {
			return false
		}
	}
	return true
}

// Usage is the tokens of every model.
func (s Spend) Usage() chat.Usage {
	var u chat.Usage
	for _, m := range s {
		u.Add(m.Usage)
	}
	return u
}

// spendBook adds up spend; subagents add to their parent's concurrently.
type spendBook struct {
	mu     sync.Mutex
	models Spend
}

func (b *spendBook) add(model string, u chat.Usage, usd float64, priced bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := slices.IndexFunc(b.models, func(m ModelSpend) bool { return m.Model == model })
	if i < 0 {
		b.models = append(b.models, ModelSpend{Model: model, Priced: true})
		i = len(b.models) - 1
	}
	m := &b.models[i]
	m.Usage.Add(u)
	m.Calls++
	m.CostUSD += usd
	m.Priced = m.Priced && priced
}

func (b *spendBook) snapshot() Spend {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.models)
}

func (b *spendBook) reset(s Spend) {
	b.mu.Lock()
	b.models = s
	b.mu.Unlock()
}

// price is what u cost on model, from the catalog of the endpoint.
func (o *Orchestrator) price(model string, u chat.Usage) (usd float64, ok bool) {
	return catalog.Price(o.opts.Model.Catalog, model, u)
}

// spend books a model call's usage in this run's book (shared with
// subagents) and the session's, and tells the front ends.
func (o *Orchestrator) spend(u chat.Usage) {
	if u.IsZero() {
		return
	}
	usd, ok := o.price(o.model, u)
	o.books.run.add(o.model, u, usd, ok)
	o.books.session.add(o.model, u, usd, ok)
	s := o.books.session.snapshot()
	o.emit(event.UsageUpdated{Call: u, Total: o.conv.usage(), CostUSD: s.TotalUSD(), CostKnown: s.Complete()})
}

// RunSpend is what this run's model calls (this process's, subagents'
// included) used and cost.
func (o *Orchestrator) RunSpend() Spend { return o.books.run.snapshot() }

// SessionSpend is what the session's model calls used and cost, across
// the processes that ran it (as far as its store recorded them).
func (o *Orchestrator) SessionSpend() Spend { return o.books.session.snapshot() }

// books are the two spend books; a subagent shares its parent's.
type books struct {
	run, session *spendBook
}

func newBooks() books { return books{run: &spendBook{}, session: &spendBook{}} }

// UsageLister is a store that gives a session's per-call usage back.
type UsageLister interface {
	UsageRecords(ctx context.Context, sessionID string) ([]session.UsageRecord, error)
}

// loadSessionSpend starts the session's book from the store's records of
// its calls (a resumed session); a new session starts empty.
func (o *Orchestrator) loadSessionSpend(ctx context.Context) {
	var s Spend
	if l, ok := o.opts.Persistence.Store.(UsageLister); ok {
		recs, err := l.UsageRecords(ctx, o.conv.sess.ID)
		if err != nil {
			o.emit(event.Notice{Text: "the session's earlier cost is not known: " + err.Error()})
		}
		b := &spendBook{}
		for _, r := range recs {
			usd, ok := o.price(r.Model, r.Usage)
			b.add(r.Model, r.Usage, usd, ok)
		}
		s = b.models
	}
	o.books.session.reset(s)
}

// ErrBudget stops a run whose next model call would take its cost past
// the budget (Limits.BudgetUSD).
var ErrBudget = errors.New("budget reached")

// checkBudget is asked before each model call: with a budget, the run's
// cost so far plus an estimate of the call's — its whole prompt at the
// input price, no cache discount, no output — must stay within it, or
// the call is not made. A model without a price cannot be held to a
// budget; that is said once.
func (o *Orchestrator) checkBudget() error {
	limit := o.opts.Limits.BudgetUSD
	if limit <= 0 {
		return nil
	}
	spent := o.books.run.snapshot().TotalUSD()
	next, ok := o.price(o.model, chat.Usage{InputTokens: o.contextTokens()})
	if !ok {
		if !o.budgetWarned {
			o.budgetWarned = true
			o.emit(event.Notice{Text: fmt.Sprintf("the budget of $%.2f cannot be held: the model catalog has no price for %s", limit, o.model)})
		}
		return nil
	}
	if spent+next > limit {
		return fmt.Errorf("%w: this run has spent $%.4f of its $%.2f budget (--max-budget-usd, budget.usd), and the next model call would cost about $%.4f more; it was not made",
			ErrBudget, spent, limit, next)
	}
	return nil
}

// RecordUsage keeps a subagent's calls in the parent session's usage
// rows, so what the session cost is known after a restart too.
func (r *subagentRecord) RecordUsage(ctx context.Context, _ string, u session.UsageRecord) error {
	rec, ok := r.parent.store.(UsageRecorder)
	if !ok {
		return nil
	}
	r.parent.mu.Lock()
	id := r.parent.sess.ID
	r.parent.mu.Unlock()
	return rec.RecordUsage(ctx, id, u)
}
