package app

import (
	"context"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// TestEveryWireIsBuilt: each wire protocol of the provider table gets a
// provider that speaks it (a request the fake server reads as that
// protocol, an answer streamed back), and nothing is built for a wire the
// table does not name: a type config accepts is never a type coder cannot
// speak, nor silently another wire.
func TestEveryWireIsBuilt(t *testing.T) {
	t.Parallel()
	protocol := map[string]string{ // what the fake server hears for each wire
		"openai":           llmtest.ProtocolOpenAI,
		"openai-responses": llmtest.ProtocolResponses,
		"anthropic":        llmtest.ProtocolAnthropic,
	}
	for _, w := range catalog.Wires() {
		t.Run(w.Name, func(t *testing.T) {
			t.Parallel()
			want, ok := protocol[w.Name]
			if !ok {
				t.Fatalf("wire %s has no case here", w.Name)
			}
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("spoken " + w.Name)}})
			base := srv.URL()
			if w.Versioned {
				base = srv.OpenAIBaseURL()
			}
			// Named, so api.openai.com's per-model choice does not apply.
			rp := config.ResolvedProvider{Type: w.Name, TypeNamed: true, BaseURL: base, APIKey: "sk-test", Model: "m"}
			p, err := newProvider(rp, event.Discard)
			if err != nil {
				t.Fatal(err)
			}
			var acc llm.Accumulator
			if err := p.Stream(context.Background(), llm.Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}},
				func(d chat.MessageDelta) { acc.Add(d) }); err != nil {
				t.Fatal(err)
			}
			if got := acc.Message().Content; got != "spoken "+w.Name {
				t.Errorf("answer %q", got)
			}
			if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Protocol != want {
				t.Errorf("the server heard %+v, want one %s request", reqs, want)
			}
		})
	}
	if _, err := newProvider(config.ResolvedProvider{Type: "carrier-pigeon", Model: "m"}, event.Discard); err == nil {
		t.Error("a type the table does not name was built")
	}
	for _, b := range wireBuilders {
		if _, ok := catalog.WireNamed(b.wire); !ok {
			t.Errorf("a provider is built for %s, which the provider table does not name", b.wire)
		}
	}
}
