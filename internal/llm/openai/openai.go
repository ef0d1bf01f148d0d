// Package openai is the provider for OpenAI-compatible Chat Completions
// endpoints (OpenAI, DeepSeek, Qwen, Kimi, GLM, OpenRouter, Ollama, vLLM,
// llama.cpp, …), streamed over SSE and normalised into chat.MessageDeltas.
package openai

import (
	"bytes"
	"context"
	"net/http"

	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/sse"
)

// name is the provider type, and the prefix of its errors unless
// Config.Label names the endpoint.
const name = "openai"

// keyHint is where the key comes from when Config.KeyHint says nothing.
const keyHint = "OPENAI_API_KEY or CODER_API_KEY"

// Config configures a Provider: the endpoint (its BaseURL ends in /v1 or
// /vN; the provider appends /chat/completions, and sends APIKey as a
// Bearer token) and the request options.
type Config struct {
	llm.Endpoint
	// Model is used when the request names none.
	Model string
	// ReasoningEffort ("none" … "max") is sent as reasoning_effort when
	// set and the model takes an effort (see shape.go).
	ReasoningEffort string
	// MaxTokens caps the answer when the request does not; zero sends none.
	// It is capped at the model's output limit when the catalog knows it.
	MaxTokens int
}

// Provider streams Chat Completions. It makes one attempt per Stream call;
// wrap it with llm.WithRetry.
type Provider struct {
	cfg Config
	// secret is scrubbed from every error: the key and the header values.
	secret string
	// history holds each history message's encoding (see encode).
	history llm.MessageCache[encoded]
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for cfg.
func New(cfg Config) *Provider {
	cfg = cfg.WithDefaults(name)
	return &Provider{cfg: cfg, secret: cfg.Secret()}
}

// WithDefaults is cfg with its defaults filled in; label names the
// endpoint in errors when cfg names none. (The Responses API provider
// takes this Config too.)
func (cfg Config) WithDefaults(label string) Config {
	cfg.Endpoint = cfg.Endpoint.WithDefaults(label, keyHint)
	return cfg
}

// Post is one streaming POST of body to path below the base URL, as every
// call to an OpenAI-style endpoint makes it: cfg's headers, client and
// timeouts, with secret scrubbed from its errors.
func (cfg Config) Post(path, secret string, body *llm.Body) llm.StreamRequest {
	return cfg.Endpoint.Post(path, header(cfg), secret, body)
}

// Name returns "openai".
func (p *Provider) Name() string { return name }

// Stream makes one streaming call and emits its deltas. It returns nil only
// after emitting DeltaDone.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit llm.Emit) error {
	body, err := p.encode(req)
	if err != nil {
		return llm.EncodeError(p.cfg.Label, err)
	}
	s, err := llm.OpenStream(ctx, p.cfg.Post("/chat/completions", p.secret, body))
	if err != nil {
		return err
	}
	defer s.Close()
	return p.read(ctx, s, newDecoder(s.Watch(emit), p.cfg.Label, p.secret))
}

// read feeds SSE events to d until the response is complete.
func (p *Provider) read(ctx context.Context, s *llm.Stream, d *decoder) error {
	r := sse.NewReader(s)
	for {
		ev, err := r.Next()
		if err != nil {
			if d.finished && ctx.Err() == nil {
				// The answer is complete once finish_reason came; some
				// compatible servers then end without [DONE], or drop the
				// connection before the usage chunk.
				return d.done()
			}
			return s.Fail(err)
		}
		if ev.Name == "error" {
			return llm.StreamError(p.cfg.Label, ev.Data, p.secret)
		}
		data := bytes.TrimSpace(ev.Data)
		if string(data) == "[DONE]" {
			return d.done()
		}
		if len(data) == 0 {
			continue
		}
		if err := d.chunk(data); err != nil {
			return err
		}
	}
}

func (p *Provider) header() http.Header { return header(p.cfg) }

// header is what every request to an OpenAI-style endpoint carries: the
// endpoint's headers with the bearer key.
func header(cfg Config) http.Header {
	h := http.Header{}
	if cfg.APIKey != "" {
		h.Set("Authorization", "Bearer "+cfg.APIKey)
	}
	return cfg.Header(h)
}
