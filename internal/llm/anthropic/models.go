package anthropic

import (
	"context"
	"net/url"

	"github.com/coder-agent/coder/internal/llm"
)

// maxModelPages bounds the pages of GET /v1/models followed.
const maxModelPages = 10

// ListModels asks the API for its models: GET /v1/models, paged with
// after_id while has_more.
func (p *Provider) ListModels(ctx context.Context) ([]llm.ModelInfo, error) {
	var out []llm.ModelInfo
	after := ""
	for range maxModelPages {
		var page struct {
			Data []struct {
				ID          string `json:"id"`
				DisplayName string `json:"display_name"`
			} `json:"data"`
			HasMore bool   `json:"has_more"`
			LastID  string `json:"last_id"`
		}
		q := url.Values{"limit": {"1000"}}
		if after != "" {
			q.Set("after_id", after)
		}
		h := p.header()
		h.Set("Accept", "application/json")
		err := llm.GetJSON(ctx, llm.StreamRequest{
			Provider: p.cfg.Label, URL: p.cfg.BaseURL + "/v1/models?" + q.Encode(), Header: h,
			Client: p.cfg.HTTPClient, Secret: p.secret, KeyHint: p.cfg.KeyHint,
		}, &page)
		if err != nil {
			return nil, err
		}
		for _, m := range page.Data {
			out = append(out, llm.ModelInfo{ID: m.ID, Name: m.DisplayName})
		}
		if !page.HasMore || page.LastID == "" {
			break
		}
		after = page.LastID
	}
	return out, nil
}
