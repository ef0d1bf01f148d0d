package anthropic

import (
	"context"
	"reflect"
	"testing"

	"github.com/coder-agent/coder/internal/llm"
)

func TestListModelsFollowsPages(t *testing.T) {
	t.Parallel()
	page := func(body string) reply {
		return reply{body: body, header: map[string]string{"Content-Type": "application/json"}}
	}
	fs := serve(t,
		page(`{"data":[{"type":"model","id":"claude-opus-4-7","display_name":"Claude Opus 4.7","created_at":"2026-04-16T00:00:00Z"}],"has_more":true,"first_id":"claude-opus-4-7","last_id":"claude-opus-4-7"}`),
		page(`{"data":[{"type":"model","id":"claude-3-haiku-20240307","display_name":"Claude Haiku 3","created_at":"2024-03-07T00:00:00Z"}],"has_more":false,"first_id":"claude-3-haiku-20240307","last_id":"claude-3-haiku-20240307"}`))
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url, APIKey: testKey}})
	got, err := p.ListModels(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ModelInfo{{ID: "claude-opus-4-7", Name: "Claude Opus 4.7"}, {ID: "claude-3-haiku-20240307", Name: "Claude Haiku 3"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("models %+v", got)
	}
	reqs := fs.requests()
	if len(reqs) != 2 || reqs[0].path != "/v1/models" || reqs[1].query != "after_id=claude-opus-4-7&limit=1000" ||
		reqs[0].header.Get("X-Api-Key") != testKey || reqs[0].header.Get("Anthropic-Version") == "" {
		t.Fatalf("requests %+v", reqs)
	}
}
