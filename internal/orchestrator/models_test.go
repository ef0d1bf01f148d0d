package orchestrator

import (
	"context"
	"slices"
	"testing"

	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// TestModelsMergesTheCatalog: /model's list is the endpoint's own (GET
// /v1/models, through the production client) joined with the models the
// catalog knows for that endpoint, sorted, each once.
func TestModelsMergesTheCatalog(t *testing.T) {
	sc := llmtest.Scenario{Models: []string{"deepseek-chat", "my-finetune"}}
	h := newHarness(t, sc, nil, func(o *Options) { o.Model.Catalog = "deepseek" })
	got, err := h.orch.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"my-finetune"}
	for _, m := range catalog.Models("deepseek") {
		want = append(want, m.ID) // deepseek-chat among them
	}
	slices.Sort(want)
	if len(want) < 3 || !slices.Equal(got, want) {
		t.Fatalf("models %q, want %q", got, want)
	}
}
