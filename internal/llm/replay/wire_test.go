package replay

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/llm/responses"
)

// TestNamedOpenAITypeGetsChatCompletions takes the Chat Completions
// recordings of models OpenAI serves first through the Responses API
// (gpt-5, o4-mini on api.openai.com) and replays them to coder configured
// with provider.type "openai" named: each goes to /chat/completions, as
// the person asked, and reads exactly as recorded. Left unnamed (the
// control), the same models go to /responses.
func TestNamedOpenAITypeGetsChatCompletions(t *testing.T) {
	t.Parallel()
	var recs []recording
	for _, r := range load(t) {
		if r.Provider == "openai" && r.Protocol == "openai" && r.Kind == "stream" && responses.ResponsesFirst("openai", r.RequestModel) {
			recs = append(recs, r, r) // named, then the control
		}
	}
	if len(recs) < 20 {
		t.Fatalf("only %d Responses-first Chat Completions recordings", len(recs)/2)
	}
	srv := newServer(t, recs)
	for n := 0; n < len(recs); n += 2 {
		rec := recs[n]
		for i, named := range []bool{true, false} {
			cfg := responses.Config{Endpoint: llm.Endpoint{BaseURL: fmt.Sprintf("%s/r/%d/v1", srv.URL, n+i), APIKey: "sk-replay", Catalog: catalog.ProviderFor("openai", ""), Label: "OpenAI"}, Model: rec.RequestModel}
			p := responses.ForWire(cfg, "openai", named)
			var acc llm.Accumulator
			err := p.Stream(context.Background(), llm.Request{RunID: "replay", Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}},
				func(d chat.MessageDelta) { acc.Add(d) })
			srv.mu.Lock()
			sent := len(srv.bodies[n+i])
			srv.mu.Unlock()
			path := srv.path(n + i)
			switch {
			case sent == 0:
				t.Errorf("%s: no request", rec.File)
			case named && !strings.HasSuffix(path, "/chat/completions"):
				t.Errorf("%s, type openai named: request to %s", rec.File, path)
			case named:
				if problem := compare(readOpenAI(rec.body), &acc, err); problem != "" {
					t.Errorf("%s: %s", rec.File, problem)
				}
			case !strings.HasSuffix(path, "/responses"):
				t.Errorf("%s, type left to coder: request to %s, want the Responses API", rec.File, path)
			}
		}
	}
}
