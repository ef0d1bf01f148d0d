package llmtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// event is one SSE event. OpenAI streams have no event names, only data.
type event struct {
	name string
	data string
	// final marks the events that end a stream (finish reason, usage,
	// terminator): a stream fault always strikes before the first of them,
	// so a faulted attempt can never look complete.
	final bool
}

func (e event) encode() []byte {
	var b strings.Builder
	if e.name != "" {
		b.WriteString("event: " + e.name + "\n")
	}
	b.WriteString("data: " + e.data + "\n\n")
	return []byte(b.String())
}

// obj is a JSON object written as alternating keys and values. Unlike a
// map it keeps the order given, so events read like the APIs' own ("type"
// first), which matters to whoever reads a failing test's log.
type obj []any

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(o[i])
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(o[i+1])
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonEvent marshals v as the event's data. The values are built by this
// package from plain types, so a marshal error is a bug here.
func jsonEvent(name string, v any, final bool) event {
	data, err := json.Marshal(v)
	if err != nil {
		panic("llmtest: marshal event: " + err.Error())
	}
	return event{name: name, data: string(data), final: final}
}

// firstFinal is the index of the first final event (len when none).
func firstFinal(events []event) int {
	for i, e := range events {
		if e.final {
			return i
		}
	}
	return len(events)
}

// errGone reports that the client left or the server is closing.
var errGone = errors.New("llmtest: client gone or server closing")

// sender writes events one at a time, flushing each so the client sees them
// as a real stream, and sleeps between them when the step asks for slow
// tokens.
type sender struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	gone    <-chan struct{} // the request's context
	closing <-chan struct{} // the server is shutting down
	delay   time.Duration
	sent    int
}

func newSender(w http.ResponseWriter, r *http.Request, closing <-chan struct{}, delay time.Duration) *sender {
	return &sender{w: w, rc: http.NewResponseController(w), gone: r.Context().Done(), closing: closing, delay: delay}
}

// start sends the 200 and the SSE headers before any event, so even a cut
// after zero events is a stream that broke, not a failed request.
func (s *sender) start(requestIDHeader, requestID string) error {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set(requestIDHeader, requestID)
	s.w.WriteHeader(http.StatusOK)
	return s.rc.Flush()
}

func (s *sender) send(e event) error {
	if s.sent > 0 && s.delay > 0 && !s.sleep(s.delay) {
		return errGone
	}
	if _, err := s.w.Write(e.encode()); err != nil {
		return err
	}
	s.sent++
	return s.rc.Flush()
}

// sleep waits d and reports false if the client left or the server is
// closing meanwhile, so slow streams never hold up Close.
func (s *sender) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.gone:
	case <-s.closing:
	}
	return false
}

// stall blocks until the client leaves or the server closes.
func (s *sender) stall() {
	select {
	case <-s.gone:
	case <-s.closing:
	}
}

// keepAlive sends the wire's keep-alives every d until the client leaves
// or the server closes.
func (s *sender) keepAlive(w wire, d time.Duration) {
	for n := 0; ; n++ {
		if _, err := s.w.Write(w.keepAlive(n)); err != nil || s.rc.Flush() != nil {
			return
		}
		if !s.sleep(d) {
			return
		}
	}
}

// abort drops the connection mid-response. Hijacking and closing skips the
// chunked-encoding terminator, so the client's body read fails with an
// unexpected EOF instead of a clean end. Where hijacking is impossible
// (HTTP/2), ErrAbortHandler makes net/http reset the stream instead.
func (s *sender) abort() {
	conn, _, err := s.rc.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// stream sends events, applying a stream fault if there is one, and reports
// whether the whole stream reached the client. served is called just before
// the first final event: a client that has seen the end of the response may
// send its next request at once, and must get the next step.
func (s *sender) stream(w wire, events []event, f *Fault, served func()) bool {
	n := len(events)
	if f != nil {
		n = min(max(f.AfterChunks, 0), firstFinal(events))
	}
	for i, e := range events[:n] {
		if f == nil && i == firstFinal(events) {
			served()
		}
		if s.send(e) != nil {
			return false
		}
	}
	if f == nil {
		return true
	}
	switch f.Kind {
	case FaultCut:
		s.abort()
	case FaultMalformed:
		_ = s.send(w.brokenEvent())
		s.abort()
	case FaultStall:
		s.stall()
		s.abort()
	case FaultKeepAlive:
		s.keepAlive(w, cmp.Or(f.Every, 20*time.Millisecond))
		s.abort()
	case FaultStreamError:
		_ = s.send(w.errorEvent(f.Status, f.Message))
	}
	return false
}
