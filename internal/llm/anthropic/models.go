package anthropic

import (
	"context"

	"github.com/coder-agent/coder/internal/llm"
)

// ListModels asks the API which models it serves (GET /v1/models, the
// first thousand: more than any account has).
func (p *Provider) ListModels(ctx context.Context) ([]string, error) {
	return llm.FetchModels(ctx, llm.ModelsRequest{Provider: name, URL: p.cfg.BaseURL + "/v1/models?limit=1000",
		Header: p.header(), Client: p.cfg.HTTPClient, Secret: p.secret, KeyHint: p.cfg.KeyHint})
}
