package llmtest

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

func TestExhaustedScenario(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			srv := NewServer(t, Scenario{Steps: []Step{Text("only")}})
			if _, _, err := streamOnce(t, srv.URL()+p.path, p.body()); err != nil {
				t.Fatal(err)
			}
			resp := doPost(t, srv, p)
			_, _, msg := errorJSON(t, p, resp)
			if resp.StatusCode != 500 || !strings.Contains(msg, "scenario exhausted") {
				t.Fatalf("%d %q", resp.StatusCode, msg)
			}
			if r := srv.Requests()[1]; r.Fault != "exhausted" || r.Index != 1 || r.Status != 500 {
				t.Fatalf("request: %s", r.summary())
			}
		})
	}
}

func TestRepeatServesLastStepForever(t *testing.T) {
	srv := NewServer(t, Scenario{Steps: []Step{Text("a"), Text("b")}, Repeat: true})
	p := protocols[0]
	for i, want := range []string{"a", "b", "b", "b"} {
		_, events, err := streamOnce(t, srv.URL()+p.path, p.body())
		if got := streamText(t, p, events); err != nil || got != want {
			t.Fatalf("call %d: %q, %v", i, got, err)
		}
	}
	last := srv.Requests()[3]
	if last.Index != 1 || last.Attempt != 3 || srv.StepsServed() != 2 {
		t.Fatalf("last: %s, served %d", last.summary(), srv.StepsServed())
	}
}

// needsSystem is a typical Check: the request must carry a system prompt.
func needsSystem(r Request) error {
	if !strings.Contains(r.System(), "You are coder") {
		return errors.New("no system prompt")
	}
	return nil
}

func TestCheckRejectsWith400(t *testing.T) {
	// Start, not NewServer: NewServer would (rightly) fail this test at
	// cleanup for the deliberately failed check.
	srv, err := Start(Scenario{Steps: []Step{{Text: "ok", Check: needsSystem}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	p := protocols[1]
	resp := doPost(t, srv, p)
	typ, _, msg := errorJSON(t, p, resp)
	if resp.StatusCode != 400 || typ != "invalid_request_error" || !strings.Contains(msg, "check failed: no system prompt") {
		t.Fatalf("%d %q %q", resp.StatusCode, typ, msg)
	}
	body := anthropicBody()
	body["system"] = "You are coder."
	_, events, err := streamOnce(t, srv.URL()+p.path, body)
	if got := streamText(t, p, events); err != nil || got != "ok" {
		t.Fatalf("%q %v", got, err)
	}
	reqs := srv.Requests()
	if reqs[0].Fault != "check_failed" || reqs[0].CheckErr == nil || reqs[1].CheckErr != nil || !reqs[1].Completed {
		t.Fatalf("requests: %+v", reqs)
	}
}

// fakeTB records what NewServer reports at cleanup.
type fakeTB struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (f *fakeTB) Helper()                      {}
func (f *fakeTB) Cleanup(fn func())            { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(string, ...any)        { f.errors = append(f.errors, "error") }
func (f *fakeTB) Failed() bool                 { return len(f.errors) > 0 }
func (f *fakeTB) Logf(format string, _ ...any) {}

func TestNewServerReportsFailedChecks(t *testing.T) {
	tb := &fakeTB{TB: t}
	srv := NewServer(tb, Scenario{Steps: []Step{{Text: "ok", Check: needsSystem}}})
	doPost(t, srv, protocols[0])
	for _, fn := range tb.cleanups {
		fn()
	}
	if len(tb.errors) != 1 {
		t.Fatalf("reported %d errors, want 1", len(tb.errors))
	}
}

func TestRejectsUnknownPathAndNonStreaming(t *testing.T) {
	srv := NewServer(t, Scenario{Steps: []Step{Text("ok")}})
	resp := post(t, t.Context(), srv.URL()+"/v1/completions", openAIBody(true))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown path: %d", resp.StatusCode)
	}
	body := openAIBody(true)
	delete(body, "stream")
	resp = post(t, t.Context(), srv.OpenAIBaseURL()+"/chat/completions", body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("non-streaming: %d", resp.StatusCode)
	}
	reqs := srv.Requests()
	if reqs[0].Fault != "not_found" || reqs[1].Fault != "bad_request" || srv.StepsServed() != 0 {
		t.Fatalf("requests: %+v", reqs)
	}
}

func TestRequestsRecordHeadersAndWait(t *testing.T) {
	srv := NewServer(t, Scenario{Steps: []Step{Text("ok")}})
	go func() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL()+"/v1/messages", strings.NewReader(`{"stream":true}`))
		req.Header.Set("x-api-key", "sk-test")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	reqs, err := srv.WaitRequests(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].Header.Get("X-Api-Key") != "sk-test" || string(reqs[0].Body) != `{"stream":true}` || reqs[0].Start.IsZero() {
		t.Fatalf("request: %+v", reqs[0])
	}
}
