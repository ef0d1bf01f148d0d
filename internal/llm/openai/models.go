package openai

import (
	"context"

	"github.com/coder-agent/coder/internal/llm"
)

// ListModels asks the endpoint for its models: GET /models, the OpenAI
// shape every compatible server (OpenRouter, DeepSeek, Ollama, vLLM, …)
// follows: {"data":[{"id":…}]}; OpenRouter adds a name.
func (p *Provider) ListModels(ctx context.Context) ([]llm.ModelInfo, error) {
	var list struct {
		Data []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"data"`
	}
	h := p.header()
	h.Set("Accept", "application/json")
	err := llm.GetJSON(ctx, llm.StreamRequest{
		Provider: p.cfg.Label, URL: p.cfg.BaseURL + "/models", Header: h,
		Client: p.cfg.HTTPClient, Secret: p.secret, KeyHint: p.cfg.KeyHint,
	}, &list)
	if err != nil {
		return nil, err
	}
	out := make([]llm.ModelInfo, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			out = append(out, llm.ModelInfo{ID: m.ID, Name: m.Name})
		}
	}
	return out, nil
}
