package llmtest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/anthropic"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
)

// Both protocols' clients list the fake server's models; the listing is no
// model call.
func TestModelsListBothProtocols(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Models: []string{"zeta", "alpha"}})
	for _, p := range []llm.Provider{
		llm.WithRetry(openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL(), APIKey: "k"}}), llm.RetryPolicy{}),
		anthropic.New(anthropic.Config{Endpoint: llm.Endpoint{BaseURL: srv.URL(), APIKey: "k"}}),
	} {
		infos, err := p.(llm.ModelLister).ListModels(context.Background())
		var got []string
		for _, m := range infos {
			got = append(got, m.ID)
		}
		slices.Sort(got)
		if err != nil || !slices.Equal(got, []string{"alpha", "zeta"}) {
			t.Errorf("%s: %v %v", p.Name(), got, err)
		}
	}
	if srv.ModelListings() != 2 || len(srv.Requests()) != 0 {
		t.Errorf("listings %d, requests %d", srv.ModelListings(), len(srv.Requests()))
	}
}
