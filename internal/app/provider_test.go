package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
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
			p, err := newProvider(rp, catalog.ProviderFor(rp.Name, rp.BaseURL), event.Discard)
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
	if _, err := newProvider(config.ResolvedProvider{Type: "carrier-pigeon", Model: "m"}, "", event.Discard); err == nil {
		t.Error("a type the table does not name was built")
	}
	for _, b := range wireBuilders {
		if _, ok := catalog.WireNamed(b.wire); !ok {
			t.Errorf("a provider is built for %s, which the provider table does not name", b.wire)
		}
	}
}

// A refused key is named by where the person set it: a preset's own
// variable, not OpenAI's, for an OpenAI-compatible vendor.
func TestRefusedKeyNamesThePresetsVariable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"invalid api key"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	for _, c := range []struct{ name, want string }{
		{"deepseek", "DEEPSEEK_API_KEY or CODER_API_KEY"},
		{"", "OPENAI_API_KEY or CODER_API_KEY"}, // control: a custom endpoint keeps the wire's hint
	} {
		rp := config.ResolvedProvider{Name: c.name, Type: "openai", TypeNamed: true, BaseURL: srv.URL, APIKey: "sk-test-refused", Model: "m"}
		p, err := newProvider(rp, catalog.ProviderFor(rp.Name, rp.BaseURL), event.Discard)
		if err != nil {
			t.Fatal(err)
		}
		err = p.Stream(context.Background(), llm.Request{Model: "m", Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}},
			func(chat.MessageDelta) {})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: a 401 said %v, want it to name %s", c.name, err, c.want)
		}
	}
}
