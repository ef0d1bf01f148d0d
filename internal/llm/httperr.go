package llm

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/coder-agent/coder/internal/chat"
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

// StreamRequest is one streaming POST to a provider.
type StreamRequest struct {
	Provider string
	URL      string
	Header   http.Header
	Body     *Body
	// Client sends the request; nil uses one with no total timeout.
	Client *http.Client
	// Secret is the API key, scrubbed from every error.
	Secret string
	// KeyHint names where the key comes from, for 401/403 messages.
	KeyHint string
	// FirstByteTimeout bounds the wait for the response headers and the
	// first progress (a reasoning model may think a while before it);
	// IdleTimeout bounds every later gap between progress. Progress is a
	// delta the provider decoded (see Stream.Watch): keep-alive comments,
	// empty data and protocol pings are bytes, not progress, so a server
	// that only pings still times out. <= 0 disables either.
	FirstByteTimeout, IdleTimeout time.Duration
	// CallTimeout bounds the whole request, however steadily it streams.
	// Running out is not retryable: the same call would run as long
	// again. <= 0 means no bound.
	CallTimeout time.Duration
}

// defaultClient has no total timeout: a long answer is not a hung one (the
// stream's own timers catch a hung one). It follows redirects only within
// the same host, so a key in a custom header (x-api-key) is never forwarded
// elsewhere.
var defaultClient = &http.Client{
	CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 || req.URL.Host != via[0].URL.Host {
			return http.ErrUseLastResponse
		}
		return nil
	},
}

// Stream is the body of a 2xx streaming response. It is an io.Reader; a
// failed Read is turned into the error to return by Fail. Close it.
type Stream struct {
	body             io.ReadCloser
	parent, ctx      context.Context
	cancel           context.CancelCauseFunc
	timer            *time.Timer // used only by the reading goroutine
	callTimer        *time.Timer
	first, idle      time.Duration
	reading          atomic.Bool // progress came: silences are now idle gaps
	provider, secret string
}

// callTimeoutError is why a stream's context was cancelled by CallTimeout.
type callTimeoutError struct{ d time.Duration }

func (e *callTimeoutError) Error() string {
	return fmt.Sprintf("the model call took longer than %s and was stopped (provider.call_timeout_ms)", e.d)
}

// stallError is why a stream's context was cancelled by its own timer.
type stallError struct {
	d     time.Duration
	first bool
}

func (e *stallError) Error() string {
	if e.first {
		return fmt.Sprintf("no response from the server within %s", e.d)
	}
	return fmt.Sprintf("the stream stalled: no progress for %s (keep-alives do not count)", e.d)
}

// OpenStream sends r and returns the response body when the status is 2xx;
// otherwise a classified *Error (or ctx's error once ctx is done).
func OpenStream(ctx context.Context, r StreamRequest) (*Stream, error) {
	rctx, cancel := context.WithCancelCause(ctx)
	s := &Stream{parent: ctx, ctx: rctx, cancel: cancel, first: r.FirstByteTimeout,
		idle: r.IdleTimeout, provider: r.Provider, secret: r.Secret}
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, r.URL, r.Body.Reader())
	if err != nil {
		cancel(nil)
		return nil, &Error{Provider: r.Provider, Message: clean("invalid request: "+err.Error(), r.Secret), Err: err}
	}
	// A length, not a chunked body: some compatible servers want one. A
	// redirect or an HTTP/2 retry reads the body again from GetBody.
	req.ContentLength = r.Body.Len()
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(r.Body.Reader()), nil }
	req.Header = r.Header
	client := r.Client
	if client == nil {
		client = defaultClient
	}
	s.arm(s.first)
	if r.CallTimeout > 0 {
		d := r.CallTimeout
		s.callTimer = time.AfterFunc(d, func() { s.cancel(&callTimeoutError{d: d}) })
	}
	resp, err := client.Do(req)
	if err != nil {
		s.stop()
		return nil, s.openFailed(err)
	}
	s.body = resp.Body
	if resp.StatusCode/100 != 2 {
		e := HTTPError(r.Provider, resp, r.Secret, r.KeyHint)
		s.Close()
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, e
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && s.jsonBody() {
		defer s.Close()
		return nil, s.notStreamed()
	}
	return s, nil
}

// jsonBody reports whether a body labelled JSON really is a JSON object
// rather than an event stream with the wrong Content-Type.
func (s *Stream) jsonBody() bool {
	br := bufio.NewReader(s.body)
	s.body = struct {
		io.Reader
		io.Closer
	}{br, s.body}
	b, _ := br.Peek(1)
	return len(b) == 1 && b[0] == '{'
}

// openFailed classifies an error from sending the request.
func (s *Stream) openFailed(err error) error {
	var stall *stallError
	if s.parent.Err() == nil && errors.As(context.Cause(s.ctx), &stall) {
		return &Error{Provider: s.provider, Message: stall.Error(), Retryable: true, Err: stall}
	}
	if e := s.callTimedOut(); e != nil {
		return e
	}
	return TransportError(s.parent, s.provider, err, s.secret)
}

// notStreamed handles a 2xx JSON answer to a streaming request: usually an
// error object from a compatible server, else a server ignoring "stream".
func (s *Stream) notStreamed() error {
	body, _ := io.ReadAll(io.LimitReader(s.body, maxErrorBody))
	if msg, _ := errorInfo(body); msg != "" && bytes.Contains(body, []byte(`"error"`)) {
		return StreamError(s.provider, body, s.secret)
	}
	return &Error{Provider: s.provider, Message: "the server answered without streaming (expected text/event-stream)"}
}

// Read reads the body. Bytes alone do not re-arm the idle timer: a server
// sending keep-alives forever must not hold coder forever (see Watch).
func (s *Stream) Read(p []byte) (int, error) {
	return s.body.Read(p)
}

// Watch returns emit wrapped so that every delta that is progress re-arms
// the idle timer. Call it from the goroutine that reads the stream.
func (s *Stream) Watch(emit Emit) Emit {
	return func(d chat.MessageDelta) {
		if isProgress(d) {
			s.reading.Store(true)
			s.arm(s.idle)
		}
		emit(d)
	}
}

// isProgress reports whether d moves the answer on: content (text,
// reasoning, arguments, provider objects), a tool call's start or end, or
// the end of the answer. Empty fragments and usage alone are not.
func isProgress(d chat.MessageDelta) bool {
	switch d.Kind {
	case chat.DeltaToolCallStart, chat.DeltaToolCallEnd, chat.DeltaDone:
		return true
	case chat.DeltaUsage:
		return false
	}
	return d.Text != "" || d.Raw != ""
}

// callTimedOut is the error for a request stopped by CallTimeout, or nil.
func (s *Stream) callTimedOut() error {
	var ct *callTimeoutError
	if s.parent.Err() == nil && errors.As(context.Cause(s.ctx), &ct) {
		return &Error{Provider: s.provider, Message: ct.Error(), Err: ct}
	}
	return nil
}

// Fail turns a Read error (io.EOF included: the caller saw no end of
// response) into the error Stream should return: ctx's error once the
// caller's ctx is done, else a retryable *Error wrapping ErrStreamCut.
func (s *Stream) Fail(err error) error {
	if cerr := s.parent.Err(); cerr != nil {
		return cerr
	}
	if e := s.callTimedOut(); e != nil {
		return e
	}
	e := &Error{Provider: s.provider, Retryable: true, Err: ErrStreamCut}
	var stall *stallError
	switch {
	case errors.As(context.Cause(s.ctx), &stall):
		e.Message, e.Err = stall.Error(), fmt.Errorf("%w: %w", ErrStreamCut, stall)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		e.Message = ErrStreamCut.Error()
	default:
		e.Message = clean("the stream broke: "+err.Error(), s.secret)
		e.Err = fmt.Errorf("%w: %w", ErrStreamCut, err)
	}
	return e
}

// Close releases the response and stops the timers.
func (s *Stream) Close() {
	s.stop()
	if s.body != nil {
		s.body.Close()
	}
}

func (s *Stream) stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
	if s.callTimer != nil {
		s.callTimer.Stop()
	}
	s.cancel(context.Canceled)
}

// arm (re)starts the stall timer for d; d <= 0 stops it.
func (s *Stream) arm(d time.Duration) {
	switch {
	case d <= 0:
		if s.timer != nil {
			s.timer.Stop()
		}
	case s.timer == nil:
		s.timer = time.AfterFunc(d, s.expire)
	default:
		s.timer.Reset(d)
	}
}

func (s *Stream) expire() {
	if s.reading.Load() {
		s.cancel(&stallError{d: s.idle})
		return
	}
	s.cancel(&stallError{d: s.first, first: true})
}
