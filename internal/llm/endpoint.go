package llm

import (
	"net/http"
	"strings"
	"time"
)

// DefaultIdleTimeout is the longest silence tolerated inside a stream
// when Endpoint.IdleTimeout is zero.
const DefaultIdleTimeout = 120 * time.Second

// Endpoint is how an HTTP provider reaches its API: where, with which key
// and headers, under which timeouts, and how its errors name it. Every
// provider's Config embeds it, so a new wire protocol adds only its own
// request options.
type Endpoint struct {
	// BaseURL is the API root, normalised by config for the wire type
	// (Chat Completions and Responses: ending in /vN; Messages: without
	// /v1); the provider appends its path.
	BaseURL string
	// APIKey is sent the wire's way (a bearer token, x-api-key) when
	// non-empty. It never appears in an error.
	APIKey string
	// Headers are added to every request (e.g. anthropic-beta) and may
	// override the defaults.
	Headers map[string]string
	// HTTPClient sends requests; nil uses a client with no total timeout.
	HTTPClient *http.Client
	// Timeout bounds the wait for the response headers and the first
	// progress; zero falls back to IdleTimeout.
	Timeout time.Duration
	// IdleTimeout bounds the time between two pieces of progress (decoded
	// content, not keep-alives); zero means DefaultIdleTimeout. A stall is
	// a retryable stream cut.
	IdleTimeout time.Duration
	// CallTimeout bounds one whole request, however steadily it streams;
	// running out fails the call without a retry. Zero means no bound.
	CallTimeout time.Duration
	// Label names the endpoint in errors ("OpenRouter", "DeepSeek"); empty
	// means the provider's wire type.
	Label string
	// Catalog is the catalog provider of the endpoint (catalog.ProviderFor):
	// it shapes requests and says what reasoning goes back. Empty: the
	// model is looked up by its name alone.
	Catalog string
	// KeyHint names where the key comes from, for 401/403 messages; empty
	// means the wire's own variables.
	KeyHint string
}

// WithDefaults is e with its defaults filled in: label and keyHint are
// the wire's, used when e names none.
func (e Endpoint) WithDefaults(label, keyHint string) Endpoint {
	e.BaseURL = strings.TrimRight(e.BaseURL, "/")
	if e.IdleTimeout <= 0 {
		e.IdleTimeout = DefaultIdleTimeout
	}
	if e.Timeout <= 0 {
		e.Timeout = e.IdleTimeout
	}
	if e.KeyHint == "" {
		e.KeyHint = keyHint
	}
	if e.Label == "" {
		e.Label = label
	}
	return e
}

// Secret is what is scrubbed from every error of the endpoint: the key
// and the header values (see Secrets).
func (e Endpoint) Secret() string { return Secrets(e.APIKey, e.Headers) }

// Header is what every request to the endpoint carries: JSON in, an event
// stream out, the wire's own headers (its key among them), then the
// configured headers, which may override any of them.
func (e Endpoint) Header(wire http.Header) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	for k, vs := range wire {
		h[k] = vs
	}
	for k, v := range e.Headers {
		h.Set(k, v)
	}
	return h
}

// Post is one streaming POST of body to path below the base URL, with
// the endpoint's client and timeouts and secret scrubbed from its errors.
func (e Endpoint) Post(path string, header http.Header, secret string, body *Body) StreamRequest {
	return StreamRequest{
		Provider:         e.Label,
		URL:              e.BaseURL + path,
		Header:           header,
		Body:             body,
		Client:           e.HTTPClient,
		Secret:           secret,
		KeyHint:          e.KeyHint,
		FirstByteTimeout: e.Timeout,
		IdleTimeout:      e.IdleTimeout,
		CallTimeout:      e.CallTimeout,
	}
}
