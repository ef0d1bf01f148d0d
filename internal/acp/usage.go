package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
)

// usageBook keeps what usage_update and the prompt response report: the
// context's fill, what the session's model calls cost (the core prices
// them from the model catalog, subagents' included), and the last turn's
// tokens. Both are unstable parts of ACP (usage_update and
// PromptResponse.usage), which editors that do not know them ignore.
type usageBook struct {
	cost   float64
	priced bool
	// used and size are the context's tokens and window, as last sent.
	used, size int
	sent       bool
	turn       chat.Usage
}

// note takes an event into the book; it returns the usage_update to send,
// if the figures an editor shows changed.
func (b *usageBook) note(e event.Event) []sdk.SessionUpdate {
	switch e := e.(type) {
	case event.Subagent:
		if u, ok := e.Event.(event.UsageUpdated); ok {
			b.spent(u) // a subagent's calls are booked with its parent's
		}
	case event.UsageUpdated:
		b.spent(e)
	case event.TurnFinished:
		b.turn = e.Usage
	case event.ContextUpdated:
		if b.sent && e.Tokens == b.used && e.Limit == b.size {
			return nil
		}
		b.used, b.size, b.sent = e.Tokens, e.Limit, true
		return one(b.update())
	}
	return nil
}

// spent takes the session's cost so far; a cost is reported once some
// call's price was known.
func (b *usageBook) spent(u event.UsageUpdated) {
	b.cost = u.CostUSD
	b.priced = b.priced || u.CostKnown || u.CostUSD > 0
}

func (b *usageBook) update() sdk.SessionUpdate {
	u := &sdk.SessionUsageUpdate{Used: b.used, Size: b.size}
	if b.priced {
		u.Cost = &sdk.Cost{Amount: b.cost, Currency: "USD"}
	}
	return sdk.SessionUpdate{UsageUpdate: u}
}

// promptUsage is a turn's tokens as the prompt response carries them.
func promptUsage(u chat.Usage) *sdk.Usage {
	if u.IsZero() {
		return nil
	}
	return &sdk.Usage{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CachedReadTokens: nonZero(u.CacheReadTokens), CachedWriteTokens: nonZero(u.CacheWriteTokens),
		TotalTokens: u.PromptTokens() + u.OutputTokens,
	}
}

func nonZero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}
