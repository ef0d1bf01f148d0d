package llm

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// This file holds what both HTTP providers share about failures: turning a
// transport error, an HTTP error response or an in-stream error object into
// a classified *Error, and scrubbing the API key from all of them.

const (
	maxErrorBody = 64 << 10 // how much of an error response is read
	maxMessage   = 500      // the longest Error.Message
)

// Secrets joins several secrets (the API key, header values) into the one
// secret string the error helpers take; Redact removes each of them.
func Secrets(key string, headers map[string]string) string {
	parts := []string{key}
	for _, v := range headers {
		parts = append(parts, v)
		if _, token, ok := strings.Cut(v, " "); ok { // "Bearer <token>"
			parts = append(parts, token)
		}
	}
	return strings.Join(parts, "\x00")
}

// Redact replaces every occurrence of secret in s (each NUL-separated part,
// see Secrets, when it is at least 4 bytes long). An empty secret leaves s
// unchanged.
func Redact(s, secret string) string {
	if strings.Contains(secret, "\x00") {
		for _, part := range strings.Split(secret, "\x00") {
			if len(part) >= 4 {
				s = strings.ReplaceAll(s, part, "[REDACTED]")
			}
		}
		return s
	}
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[REDACTED]")
}

// HTTPError classifies a non-2xx response and closes nothing: the caller
// owns resp.Body. It reads at most 64 KiB of the body. keyHint, if set,
// names where the key comes from and is added to 401/403 messages.
func HTTPError(provider string, resp *http.Response, secret, keyHint string) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg, kind := errorInfo(body)
	if msg == "" {
		msg = strings.ToLower(http.StatusText(resp.StatusCode))
	}
	e := &Error{Provider: provider, Status: resp.StatusCode, Retryable: retryableStatus(resp.StatusCode)}
	if e.Retryable {
		e.RetryAfter = RetryAfter(resp.Header, time.Now())
	}
	switch resp.StatusCode {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		e.ContextOverflow = isOverflow(msg + " " + kind)
	case http.StatusUnauthorized, http.StatusForbidden:
		if keyHint != "" {
			msg += " (check " + keyHint + ")"
		}
	}
	e.Message = clean(msg, secret)
	return e
}

// StreamError classifies an error object received inside a 200 stream, such
// as OpenAI's {"error":{...}} chunk or Anthropic's error event. Overload,
// rate-limit and server errors are retryable.
func StreamError(provider string, data []byte, secret string) *Error {
	msg, kind := errorInfo(data)
	if msg == "" {
		msg = "the server reported an error in the stream"
	}
	if kind != "" && !strings.Contains(msg, kind) {
		msg += " (" + kind + ")"
	}
	return &Error{
		Provider:        provider,
		Message:         clean(msg, secret),
		Retryable:       retryableKind(kind),
		ContextOverflow: isOverflow(msg),
	}
}

// TransportError classifies an error from sending a request or reading its
// response. A cancelled ctx wins: its error is returned as is.
func TransportError(ctx context.Context, provider string, err error, secret string) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return &Error{
		Provider:  provider,
		Message:   clean("cannot reach the server: "+err.Error(), secret),
		Retryable: retryableTransport(err),
		Err:       err,
	}
}

func retryableStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooEarly, http.StatusTooManyRequests:
		return true
	}
	return code >= 500 // includes Anthropic's 529 overloaded
}

// retryableKind reports whether an error type or code names a transient
// condition.
func retryableKind(kind string) bool {
	k := strings.ToLower(kind)
	for _, s := range []string{"overload", "rate_limit", "server_error", "api_error", "timeout", "unavailable", "429", "500", "502", "503", "504", "529"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// retryableTransport is false for failures no retry can fix: a bad URL, an
// unknown host, a certificate the client rejects.
func retryableTransport(err error) bool {
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound,
		errors.As(err, &unknownCA), errors.As(err, &hostname),
		errors.As(err, &invalid), errors.As(err, &verify),
		strings.Contains(err.Error(), "unsupported protocol scheme"):
		return false
	}
	return true
}

// overflowPhrases are how servers word "the prompt does not fit the
// model's context window" (OpenAI, Anthropic, DeepSeek, vLLM, llama.cpp,
// Kimi, DashScope, Mistral, OpenRouter).
var overflowPhrases = []string{
	"maximum context length", "context_length_exceeded", "context length exceeded",
	"prompt is too long", "exceeds the available context size", "exceeded model token limit",
	"context window", "input is too long", "maximum number of tokens", "range of input length",
	"request_too_large",
}

func isOverflow(msg string) bool {
	m := strings.ToLower(msg)
	for _, p := range overflowPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// RetryAfter reads how long the server asked us to wait: retry-after-ms
// (OpenAI), else Retry-After as seconds or an HTTP date. 0 when absent or
// unparsable.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	const limit = 24 * time.Hour
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < float64(limit/time.Millisecond) {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < limit.Seconds() {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 && d < limit {
			return d
		}
	}
	return 0
}

// errorInfo extracts a readable message and an error type or code from the
// shapes servers use: {"error":{"message","type","code"}} (OpenAI,
// Anthropic), {"error":"text"} (Ollama), {"message":...}, {"detail":...};
// otherwise the body's text.
func errorInfo(body []byte) (msg, kind string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		if t := strings.TrimSpace(string(body)); !strings.HasPrefix(t, "<") {
			return t, "" // plain text; an HTML error page says nothing useful
		}
		return "", ""
	}
	var obj struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
		// Metadata is OpenRouter's: the upstream provider's own message
		// ("… is temporarily rate-limited upstream") and its name.
		Metadata struct {
			Raw          json.RawMessage `json:"raw"`
			ProviderName string          `json:"provider_name"`
		} `json:"metadata"`
	}
	var text string
	switch {
	case json.Unmarshal(v.Error, &obj) == nil && (obj.Message != "" || obj.Type != ""):
		return withUpstream(obj.Message, rawString(obj.Metadata.Raw), obj.Metadata.ProviderName), cmp.Or(obj.Type, rawString(obj.Code))
	case json.Unmarshal(v.Error, &text) == nil && text != "":
		return text, ""
	case v.Message != "":
		return v.Message, ""
	case len(v.Detail) > 0:
		return rawString(v.Detail), ""
	}
	return string(body), ""
}

// withUpstream adds what a gateway reports from the provider behind it to
// its own, often generic, message ("Provider returned error").
func withUpstream(msg, raw, provider string) string {
	if raw != "" && !strings.Contains(msg, raw) {
		msg = strings.TrimSuffix(msg, ".") + ": " + raw
	}
	if provider != "" {
		msg += " (upstream: " + provider + ")"
	}
	return msg
}

// rawString is a JSON string's value, or the raw JSON of anything else.
func rawString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// clean redacts secret, folds s onto one line and caps its length. Redaction
// comes first so truncation cannot leave a fragment of the key behind.
func clean(s, secret string) string {
	s = strings.Join(strings.Fields(Redact(s, secret)), " ")
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
