package openai

import (
	"context"

	"github.com/coder-agent/coder/internal/llm"
)

// ListModels asks the endpoint which models it serves (GET /models).
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	return llm.FetchModels(ctx, llm.ModelsRequest{Provider: name, URL: p.cfg.BaseURL + "/models",
		Header: p.header(), Client: p.cfg.HTTPClient, Secret: p.secret, KeyHint: p.cfg.KeyHint})
}
