package llmtest

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is a running fake: a loopback HTTP server that answers both
// protocols from one scenario.
type Server struct {
	hs        *httptest.Server
	closing   chan struct{} // closed by Close so stalled and slow streams end
	closeOnce sync.Once

	mu       sync.Mutex
	sc       Scenario
	next     int   // steps served to completion (the next model call's index)
	attempts []int // attempts per step
	reqs     []Request
	changed  chan struct{} // closed and replaced whenever reqs changes
	listings atomic.Int64  // GET /v1/models answered
}

// Start starts a server for sc on 127.0.0.1 without a testing.TB, for use
// from TestMain or a helper command. The caller must Close it.
func Start(sc Scenario) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("llmtest: listen: %w", err)
	}
	sc.Steps = slices.Clone(sc.Steps) // the caller may reuse its slice
	s := &Server{
		sc:       sc,
		attempts: make([]int, len(sc.Steps)),
		closing:  make(chan struct{}),
		changed:  make(chan struct{}),
	}
	s.hs = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(s.handle)}}
	s.hs.Start()
	return s, nil
}

// NewServer starts a server for sc and closes it when the test ends. At
// cleanup it fails the test if any Step.Check rejected a request (the agent
// under test may have swallowed the 400), and when the test failed it logs
// every request received, to show what the agent actually did.
func NewServer(t testing.TB, sc Scenario) *Server {
	t.Helper()
	s, err := Start(sc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Close()
		for _, r := range s.Requests() {
			if r.CheckErr != nil {
				t.Errorf("llmtest: step %d attempt %d failed its check: %v", r.Index, r.Attempt, r.CheckErr)
			}
		}
		if t.Failed() {
			for _, r := range s.Requests() {
				t.Logf("llmtest: %s", r.summary())
			}
		}
	})
	return s
}

// Close stops the server, ending stalled and slow streams first. It is safe
// to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closing)
		s.hs.Close()
	})
}

// URL is the base URL without /v1, e.g. http://127.0.0.1:PORT. Both
// protocols are served with and without the /v1 prefix, so this is also the
// Anthropic base URL.
func (s *Server) URL() string { return s.hs.URL }

// OpenAIBaseURL is URL()+"/v1", the form OpenAI clients take.
func (s *Server) OpenAIBaseURL() string { return s.hs.URL + "/v1" }

// Requests returns every request received so far, in arrival order,
// including faulted and rejected ones.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// StepsServed is how many steps were streamed to completion.
func (s *Server) StepsServed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// WaitRequests blocks until at least n requests have arrived (not
// necessarily finished) and returns them, e.g. to act while a stalled
// stream is open.
func (s *Server) WaitRequests(ctx context.Context, n int) ([]Request, error) {
	for {
		s.mu.Lock()
		if len(s.reqs) >= n {
			out := slices.Clone(s.reqs)
			s.mu.Unlock()
			return out, nil
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("llmtest: waiting for %d requests: %w", n, ctx.Err())
		}
	}
}

func protocolOf(path string) (string, wire) {
	switch path {
	case "/v1/chat/completions", "/chat/completions":
		return ProtocolOpenAI, openAIWire{}
	case "/v1/messages", "/messages":
		return ProtocolAnthropic, anthropicWire{}
	case "/v1/responses", "/responses":
		return ProtocolResponses, responsesWire{}
	}
	return "", nil
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if isModelsList(r) {
		s.serveModels(w)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req := Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body, Start: time.Now()}
	var wr wire
	req.Protocol, wr = protocolOf(r.URL.Path)
	if wr == nil || r.Method != http.MethodPost {
		req.Index, req.Fault = -1, "not_found"
		rec := s.record(req)
		msg := fmt.Sprintf("llmtest: no route for %s %s", r.Method, r.URL.Path)
		s.finish(rec, replyError(w, openAIWire{}, http.StatusNotFound, msg, false, ""), false)
		return
	}
	st, rec := s.begin(&req)
	status, completed := http.StatusOK, false
	// Deferred so the record is finished even when abort panics.
	defer func() { s.finish(rec, status, completed) }()
	status, completed = s.respond(w, r, wr, st, rec, req)
}

// begin matches the request to the current step, counts the attempt and
// records the request. st is nil when the scenario is exhausted.
func (s *Server) begin(req *Request) (st *Step, rec int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.Index = s.next
	n := len(s.sc.Steps)
	if req.Index >= n && s.sc.Repeat && n > 0 {
		req.Index = n - 1
	}
	if req.Index < n {
		st = &s.sc.Steps[req.Index]
		s.attempts[req.Index]++
		req.Attempt = s.attempts[req.Index]
	} else {
		req.Fault = "exhausted"
	}
	return st, s.recordLocked(*req)
}

// respond answers one matched request and returns the status sent and
// whether the step was delivered completely.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, wr wire, st *Step, rec int, req Request) (int, bool) {
	in := parseInbound(req.Body)
	if st == nil {
		msg := fmt.Sprintf("llmtest: scenario exhausted: all %d steps were served and Repeat is false", len(s.sc.Steps))
		return replyError(w, wr, http.StatusInternalServerError, msg, false, ""), false
	}
	if !in.Stream {
		s.note(rec, "bad_request", nil)
		return replyError(w, wr, http.StatusBadRequest, `llmtest: only streaming requests are served; set "stream": true`, false, ""), false
	}
	if st.Check != nil {
		if err := st.Check(req); err != nil {
			s.note(rec, "check_failed", err)
			return replyError(w, wr, http.StatusBadRequest, "llmtest: check failed: "+err.Error(), false, ""), false
		}
	}
	f := st.faultFor(req.Attempt)
	if f != nil {
		s.note(rec, string(f.Kind), nil)
		if status, replied := replyFault(w, wr, f); replied {
			return status, false
		}
	}
	snd := newSender(w, r, s.closing, st.TokenDelay)
	if snd.start(wr.requestIDHeader(), requestID(rec)) != nil {
		return http.StatusOK, false
	}
	return http.StatusOK, snd.stream(wr, wr.stream(st, req.Index, in), f, func() { s.advance(rec) })
}

// replyFault answers the faults that are plain HTTP errors; stream faults
// are left to the sender (replied is false).
func replyFault(w http.ResponseWriter, wr wire, f *Fault) (status int, replied bool) {
	switch f.Kind {
	case FaultStatus:
		return replyError(w, wr, cmp.Or(f.Status, http.StatusInternalServerError), f.Message, false, f.RetryAfter), true
	case FaultContextOverflow:
		return replyError(w, wr, cmp.Or(f.Status, http.StatusBadRequest), f.Message, true, f.RetryAfter), true
	case FaultCut, FaultMalformed, FaultStall, FaultKeepAlive, FaultStreamError:
		return 0, false
	}
	msg := fmt.Sprintf("llmtest: unknown fault kind %q", f.Kind)
	return replyError(w, wr, http.StatusInternalServerError, msg, false, ""), true
}

func requestID(rec int) string { return "req_llmtest_" + strconv.Itoa(rec) }

// replyError writes a protocol-correct error response and returns status.
func replyError(w http.ResponseWriter, wr wire, status int, msg string, overflow bool, retryAfter string) int {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	w.WriteHeader(status)
	_, _ = w.Write(wr.errorBody(status, msg, overflow))
	return status
}

func (s *Server) record(req Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recordLocked(req)
}

func (s *Server) recordLocked(req Request) int {
	if s.sc.Lean {
		req.Body, req.Header = nil, nil
	}
	s.reqs = append(s.reqs, req)
	s.notifyLocked()
	return len(s.reqs) - 1
}

// note records the fault as soon as it is chosen, so a test watching
// Requests() sees it while the response is still in flight (e.g. a stall).
func (s *Server) note(rec int, fault string, checkErr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs[rec].Fault, s.reqs[rec].CheckErr = fault, checkErr
	s.notifyLocked()
}

// finish completes the record and advances the scenario when the step was
// delivered. The index check keeps a concurrent duplicate (or a Repeat of
// the last step) from skipping a step.
func (s *Server) finish(rec, status int, completed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &s.reqs[rec]
	r.Status, r.Completed, r.End = status, completed, time.Now()
	s.advanceLocked(rec, completed)
	s.notifyLocked()
}

// advance moves the scenario past the request's step as its final event is
// about to be sent.
func (s *Server) advance(rec int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked(rec, true)
}

func (s *Server) advanceLocked(rec int, completed bool) {
	if r := &s.reqs[rec]; completed && !r.advanced && r.Index == s.next {
		s.next++
		r.advanced = true
	}
}

func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (r Request) summary() string {
	s := fmt.Sprintf("%s %s step=%d attempt=%d status=%d completed=%v", r.Start.Format("15:04:05.000"), r.Path, r.Index, r.Attempt, r.Status, r.Completed)
	if r.Fault != "" {
		s += " fault=" + r.Fault
	}
	if r.CheckErr != nil {
		s += " check: " + r.CheckErr.Error()
	}
	return s
}
