package responses

import (
	"context"

	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/llm/openai"
)

// ListModels lists the endpoint's models: the same GET /v1/models as
// Chat Completions.
func (p *Provider) ListModels(ctx context.Context) ([]llm.ModelInfo, error) {
	return openai.New(p.cfg).ListModels(ctx)
}

// ForWire is the provider for an OpenAI-style endpoint of wire type typ
// ("openai" or "openai-responses"); named says the person named the type
// rather than leaving it to be inferred. "openai-responses" is the
// Responses API. "openai" named is Chat Completions, as asked, whatever
// the model. Otherwise OpenAI's own endpoint chooses per model (Auto) and
// any other speaks Chat Completions.
func ForWire(cfg Config, typ string, named bool) llm.Provider {
	switch {
	case typ == "openai-responses":
		return New(cfg)
	case cfg.Catalog == "openai" && !named:
		return Auto(cfg)
	}
	return openai.New(cfg)
}

// auto serves each call through the Responses API when the catalog marks
// the call's model Responses-first, through Chat Completions otherwise, so
// switching models (/model) switches the wire too.
type auto struct {
	chat      *openai.Provider
	responses *Provider
	cfg       Config
}

// Auto returns the provider for an OpenAI endpoint configured as plain
// "openai": OpenAI serves its reasoning models first (and some only) on
// the Responses API, where their reasoning survives a tool loop.
func Auto(cfg Config) llm.Provider {
	return &auto{chat: openai.New(cfg), responses: New(cfg), cfg: cfg}
}

// ResponsesFirst reports whether model, on catalog provider cat, is
// served first by the Responses API: only OpenAI's own endpoint is (a
// gateway serving "openai/gpt-5" speaks Chat Completions).
func ResponsesFirst(cat, model string) bool {
	if cat != "openai" {
		return false
	}
	m, ok := catalog.Lookup(cat, model)
	return ok && m.Responses
}

func (a *auto) pick(model string) llm.Provider {
	if model == "" {
		model = a.cfg.Model
	}
	if ResponsesFirst(a.cfg.Catalog, model) {
		return a.responses
	}
	return a.chat
}

func (a *auto) Name() string { return "openai" }

func (a *auto) Stream(ctx context.Context, req llm.Request, emit llm.Emit) error {
	return a.pick(req.Model).Stream(ctx, req, emit)
}

func (a *auto) ListModels(ctx context.Context) ([]llm.ModelInfo, error) {
	return a.chat.ListModels(ctx)
}
