// Package anthropic is the provider for the Anthropic Messages API (text,
// extended thinking and tool_use blocks), streamed over SSE and normalised
// into chat.MessageDeltas.
package anthropic

import (
	"context"
	"net/http"

	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/sse"
)

// name is the provider type, and the prefix of its errors.
const name = "anthropic"

// apiVersion is the anthropic-version header this wire format follows.
const apiVersion = "2023-06-01"

// keyHint is where the key comes from when Config.KeyHint says nothing.
const keyHint = "ANTHROPIC_API_KEY or CODER_API_KEY"

const (
	// DefaultMaxTokens is max_tokens when neither Config nor the request
	// sets one (the API requires it), capped at the model's limit.
	DefaultMaxTokens = 8192
	// ThinkingMaxTokens is the default max_tokens when thinking is on:
	// thinking spends the same budget, and an answer cut short by its own
	// reasoning is a failed turn.
	ThinkingMaxTokens = 32000
)

// Config configures a Provider: the endpoint (its BaseURL is the API root
// without /v1, e.g. https://api.anthropic.com; the provider appends
// /v1/messages and sends APIKey as x-api-key) and the request options.
type Config struct {
	llm.Endpoint
	// Model is used when the request names none.
	Model string
	// MaxTokens is max_tokens when the request sets none; zero means
	// DefaultMaxTokens (ThinkingMaxTokens with thinking on), either capped
	// at the model's output limit.
	MaxTokens int
	// ThinkingBudget > 0 enables extended thinking with this many tokens
	// (on a model that takes only adaptive thinking: adaptive thinking).
	// max_tokens is raised above it when needed, as the API requires.
	ThinkingBudget int
	// Effort ("low" … "max") enables adaptive thinking with this effort on
	// models that take it, and sets a budget on those that take only a
	// budget; "none" turns thinking off. See shape.go.
	Effort string
}

// Provider streams Messages API calls. It makes one attempt per Stream
// call; wrap it with llm.WithRetry.
type Provider struct {
	cfg Config
	// secret is scrubbed from every error: the key and the header values.
	secret string
	// history holds each history message's blocks, encoded (see encode).
	history llm.MessageCache[turn]
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for cfg.
func New(cfg Config) *Provider {
	cfg.Endpoint = cfg.Endpoint.WithDefaults(name, keyHint)
	return &Provider{cfg: cfg, secret: cfg.Secret()}
}

// Name returns "anthropic".
func (p *Provider) Name() string { return name }

// Stream makes one streaming call and emits its deltas. It returns nil only
// after emitting DeltaDone.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit llm.Emit) error {
	body, err := p.encode(req)
	if err != nil {
		return llm.EncodeError(p.cfg.Label, err)
	}
	s, err := llm.OpenStream(ctx, p.cfg.Post("/v1/messages", p.header(), p.secret, body))
	if err != nil {
		return err
	}
	defer s.Close()
	d := newDecoder(s.Watch(emit), p.cfg.Label, p.secret)
	r := sse.NewReader(s)
	for {
		ev, err := r.Next()
		if err != nil {
			return s.Fail(err) // EOF included: message_stop never came
		}
		if done, err := d.event(ev); err != nil || done {
			return err
		}
	}
}

// header is the endpoint's headers with the API version and the key.
func (p *Provider) header() http.Header {
	h := http.Header{}
	h.Set("Anthropic-Version", apiVersion)
	if p.cfg.APIKey != "" {
		h.Set("X-Api-Key", p.cfg.APIKey)
	}
	return p.cfg.Header(h)
}
