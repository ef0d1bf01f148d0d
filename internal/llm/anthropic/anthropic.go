// Package anthropic is the provider for the Anthropic Messages API (text,
// extended thinking and tool_use blocks), streamed over SSE and normalised
// into chat.MessageDeltas.
package anthropic

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/sse"
)

// name is the provider type, and the prefix of its errors.
const name = "anthropic"

// apiVersion is the anthropic-version header this wire format follows.
const apiVersion = "2023-06-01"

const (
	// DefaultMaxTokens is max_tokens when neither Config nor the request
	// sets one (the API requires it), capped at the model's limit.
	DefaultMaxTokens = 8192
	// ThinkingMaxTokens is the default max_tokens when thinking is on:
	// thinking spends the same budget, and an answer cut short by its own
	// reasoning is a failed turn.
	ThinkingMaxTokens = 32000
	// DefaultIdleTimeout is the longest silence tolerated inside a stream
	// when Config.IdleTimeout is zero. The API pings every few seconds.
	DefaultIdleTimeout = 120 * time.Second
)

// Config configures a Provider.
type Config struct {
	// BaseURL is the API root without /v1 (e.g. https://api.anthropic.com);
	// the provider appends /v1/messages.
	BaseURL string
	// APIKey is sent as x-api-key when non-empty. It never appears in an
	// error.
	APIKey string
	// Model is used when the request names none.
	Model string
	// Headers are added to every request (e.g. anthropic-beta) and may
	// override the defaults.
	Headers map[string]string
	// HTTPClient sends requests; nil uses a client with no total timeout.
	HTTPClient *http.Client
	// Timeout bounds the wait for the response headers and the first byte;
	// zero falls back to IdleTimeout.
	Timeout time.Duration
	// IdleTimeout bounds the time between two pieces of progress (decoded
	// content, not keep-alives); zero means DefaultIdleTimeout. A stall is
	// a retryable stream cut.
	IdleTimeout time.Duration
	// CallTimeout bounds one whole request, however steadily it streams;
	// running out fails the call without a retry. Zero means no bound.
	CallTimeout time.Duration
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
	// Label names the endpoint in errors; empty means "anthropic".
	Label string
	// Catalog is the catalog provider of the endpoint (catalog.ProviderFor);
	// empty looks the model up by its name alone.
	Catalog string
	// KeyHint names where the key comes from, for 401/403 messages; empty
	// means "ANTHROPIC_API_KEY or CODER_API_KEY".
	KeyHint string
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
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = cfg.IdleTimeout
	}
	if cfg.KeyHint == "" {
		cfg.KeyHint = "ANTHROPIC_API_KEY or CODER_API_KEY"
	}
	if cfg.Label == "" {
		cfg.Label = name
	}
	return &Provider{cfg: cfg, secret: llm.Secrets(cfg.APIKey, cfg.Headers)}
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
	s, err := llm.OpenStream(ctx, llm.StreamRequest{
		Provider:         p.cfg.Label,
		URL:              p.cfg.BaseURL + "/v1/messages",
		Header:           p.header(),
		Body:             body,
		Client:           p.cfg.HTTPClient,
		Secret:           p.secret,
		KeyHint:          p.cfg.KeyHint,
		FirstByteTimeout: p.cfg.Timeout,
		IdleTimeout:      p.cfg.IdleTimeout,
		CallTimeout:      p.cfg.CallTimeout,
	})
	if err != nil {
		return err
	}
	defer s.Close()
	d := newDecoder(req, s.Watch(emit), p.cfg.Label, p.secret)
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

func (p *Provider) header() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	h.Set("Anthropic-Version", apiVersion)
	if p.cfg.APIKey != "" {
		h.Set("X-Api-Key", p.cfg.APIKey)
	}
	for k, v := range p.cfg.Headers {
		h.Set(k, v)
	}
	return h
}
