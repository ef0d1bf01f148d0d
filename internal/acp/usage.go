package acp

import (
	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
)

// Pricer prices a model's usage in US dollars; ok is false when the model's
// prices are unknown. The program gives the model catalog's.
type Pricer func(model string, u chat.Usage) (usd float64, ok bool)

// usageBook keeps what usage_update and the prompt response report: the
// context's fill, the cost of the calls this process priced, and the last
// turn's tokens. Both are unstable parts of ACP (usage_update and
// PromptResponse.usage), which editors that do not know them ignore.
type usageBook struct {
	price  Pricer
	model  string
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
	case event.SessionStarted:
		b.model = e.Model
	case event.ModelChanged:
		b.model = e.Model
	case event.Subagent:
		if m, ok := e.Event.(event.AssistantMessage); ok {
			b.call(m.Usage) // a subagent works with its parent's model
		}
	case event.AssistantMessage:
		b.call(e.Usage)
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

func (b *usageBook) call(u chat.Usage) {
	if b.price == nil || u.IsZero() {
		return
	}
	if usd, ok := b.price(b.model, u); ok {
		b.cost += usd
		b.priced = true
	}
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
