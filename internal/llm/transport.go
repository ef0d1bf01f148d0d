package llm

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

// This file is the stream transport every HTTP provider shares: one
// streaming POST, its response body read under the first-byte, idle and
// call timers, and a failed read turned into the error to return.

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
