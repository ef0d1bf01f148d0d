package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm"
)

func TestListModelsMergedWithCatalog(t *testing.T) {
	t.Parallel()
	fs := serve(t, jsonReply(200, `{"object":"list","data":[{"id":"gpt-5","object":"model","owned_by":"system"},{"id":"ft:gpt-4.1:acme::abc","object":"model"},{"id":"gpt-5-2025-08-07","object":"model"}]}`, nil))
	p := llm.WithRetry(New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url, APIKey: testKey, Label: "OpenAI"}, Model: "gpt-5"}), llm.RetryPolicy{})
	models, err := llm.ListModels(context.Background(), p, "openai")
	if err != nil {
		t.Fatal(err)
	}
	if r := fs.requests()[0]; r.path != "/v1/models" || r.header.Get("Authorization") != "Bearer "+testKey {
		t.Fatalf("request %s %v", r.path, r.header)
	}
	byID := map[string]llm.ModelInfo{}
	for _, m := range models {
		byID[m.ID] = m
	}
	if m := byID["gpt-5"]; !m.Listed || !m.InCatalog || m.Context != 400_000 {
		t.Errorf("gpt-5 = %+v", m)
	}
	if m := byID["gpt-5-2025-08-07"]; !m.Listed || !m.InCatalog || m.MaxOutput != 128_000 {
		t.Errorf("a dated snapshot = %+v", m)
	}
	if m := byID["ft:gpt-4.1:acme::abc"]; !m.Listed || m.InCatalog {
		t.Errorf("a fine-tune = %+v", m)
	}
	if m := byID["o3"]; m.Listed || !m.InCatalog {
		t.Errorf("a catalog model not listed for this key = %+v", m)
	}
}

func TestListModelsFailureKeepsTheCatalog(t *testing.T) {
	t.Parallel()
	fs := serve(t, jsonReply(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`","type":"invalid_request_error"}}`, nil))
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url, APIKey: testKey, Label: "DeepSeek", KeyHint: "DEEPSEEK_API_KEY"}})
	models, err := llm.ListModels(context.Background(), p, "deepseek")
	if err == nil || !strings.HasPrefix(err.Error(), "DeepSeek: HTTP 401") || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
	if len(models) < 2 || models[0].Listed {
		t.Fatalf("models = %+v", models)
	}
}
