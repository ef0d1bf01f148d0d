// Package responses is the provider for OpenAI's Responses API (POST
// /v1/responses), where OpenAI serves its reasoning models first: their
// reasoning comes as items whose encrypted content is passed back in the
// next request (store: false, include: reasoning.encrypted_content), so a
// tool loop keeps the model's reasoning without OpenAI storing anything.
// Streams are normalised into chat.MessageDeltas like every provider's.
package responses

import (
	"bytes"
	"context"

	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/llm/sse"
)

// name is the provider type, and the prefix of its errors unless
// Config.Label names the endpoint.
const name = "openai-responses"

// Config is the Chat Completions provider's: the same endpoint, key,
// headers, timeouts and options. BaseURL ends in /v1; the provider
// appends /responses.
type Config = openai.Config

// Provider streams Responses API calls. It makes one attempt per Stream
// call; wrap it with llm.WithRetry.
type Provider struct {
	cfg    Config
	secret string
	// history holds each history message's items, encoded (see encode).
	history llm.MessageCache[[][]byte]
}

var _ llm.Provider = (*Provider)(nil)

// New returns a Provider for cfg.
func New(cfg Config) *Provider {
	cfg = cfg.WithDefaults(name)
	return &Provider{cfg: cfg, secret: cfg.Secret()}
}

// Name returns "openai-responses".
func (p *Provider) Name() string { return name }

// Stream makes one streaming call and emits its deltas. It returns nil
// only after emitting DeltaDone.
func (p *Provider) Stream(ctx context.Context, req llm.Request, emit llm.Emit) error {
	body, err := p.encode(req)
	if err != nil {
		return llm.EncodeError(p.cfg.Label, err)
	}
	s, err := llm.OpenStream(ctx, p.cfg.Post("/responses", p.secret, body))
	if err != nil {
		return err
	}
	defer s.Close()
	d := newDecoder(s.Watch(emit), p.cfg.Label, p.secret)
	r := sse.NewReader(s)
	for {
		ev, err := r.Next()
		if err != nil {
			return s.Fail(err) // EOF included: the response never completed
		}
		data := bytes.TrimSpace(ev.Data)
		if len(data) == 0 || string(data) == "[DONE]" {
			continue
		}
		if done, err := d.event(ev.Name, data); err != nil || done {
			return err
		}
	}
}
