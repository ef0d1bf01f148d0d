package acp

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
)

// The context's fill goes to the editor as usage_update whenever it
// changes, with the cost of every priced call so far (subagents' too, at
// the model of the moment); a turn's tokens go with its prompt response.
func TestUsageUpdates(t *testing.T) {
	price := func(model string, u chat.Usage) (float64, bool) {
		if model != "priced" {
			return 0, false
		}
		return float64(u.InputTokens)/1e6 + float64(u.OutputTokens)*2/1e6, true
	}
	m := newMapper("/ws", nil, price)
	var got []sdk.SessionUpdate
	for _, e := range []event.Event{
		event.SessionStarted{Model: "free"},
		event.AssistantMessage{Usage: chat.Usage{InputTokens: 1000, OutputTokens: 10}},
		event.ContextUpdated{Tokens: 1010, Limit: 100_000},
		event.ContextUpdated{Tokens: 1010, Limit: 100_000}, // unchanged: not sent again
		event.ModelChanged{Model: "priced"},
		event.AssistantMessage{Usage: chat.Usage{InputTokens: 2000, OutputTokens: 500}},
		event.Subagent{ID: "1", Agent: "explore", Event: event.AssistantMessage{Usage: chat.Usage{InputTokens: 1000}}},
		event.ContextUpdated{Tokens: 2500, Limit: 100_000},
		event.TurnFinished{Usage: chat.Usage{InputTokens: 3000, OutputTokens: 510, CacheReadTokens: 7}},
	} {
		got = append(got, m.updates(e)...)
	}
	sameJSON(t, got, `[
		{"sessionUpdate":"usage_update","used":1010,"size":100000},
		{"sessionUpdate":"usage_update","used":2500,"size":100000,"cost":{"amount":0.004,"currency":"USD"}}]`)
	_, turn := m.stopReason()
	sameJSON(t, promptUsage(turn), `{"inputTokens":3000,"outputTokens":510,"cachedReadTokens":7,"totalTokens":3517}`)
	m.beginTurn()
	if _, turn := m.stopReason(); promptUsage(turn) != nil {
		t.Fatal("a new turn starts with no tokens")
	}
}
