package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// protoCase runs a test against both protocols.
type protoCase struct {
	name string
	path string
	body func() map[string]any
}

var protocols = []protoCase{
	{ProtocolOpenAI, "/v1/chat/completions", func() map[string]any { return openAIBody(true) }},
	{ProtocolAnthropic, "/v1/messages", anthropicBody},
}

// terminated reports whether a stream contains its protocol's ending.
func terminated(events []sse) bool {
	for _, e := range events {
		if e.data == "[DONE]" || strings.Contains(e.data, `"finish_reason":"`) ||
			e.name == "message_delta" || e.name == "message_stop" {
			return true
		}
	}
	return false
}

// streamText reads a successful stream's text in either protocol.
func streamText(t *testing.T, p protoCase, events []sse) string {
	t.Helper()
	if p.name == ProtocolOpenAI {
		return assembleOpenAI(t, events).text
	}
	return assembleAnthropic(t, events).text
}

// errorJSON reads an error body: OpenAI {"error":{message,type,code}} or
// Anthropic {"type":"error","error":{type,message}}.
func errorJSON(t *testing.T, p protoCase, resp *http.Response) (typ, code, msg string) {
	t.Helper()
	var v struct {
		Type  string
		Error struct{ Type, Message, Code string }
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &v); err != nil || v.Error.Message == "" || v.Error.Type == "" {
		t.Fatalf("error body %s: %v", b, err)
	}
	if p.name == ProtocolAnthropic && v.Type != "error" {
		t.Fatalf("anthropic error body %s", b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("error Content-Type = %q", ct)
	}
	return v.Error.Type, v.Error.Code, v.Error.Message
}

func doPost(t *testing.T, srv *Server, p protoCase) *http.Response {
	t.Helper()
	resp := post(t, t.Context(), srv.URL()+p.path, p.body())
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestStatusFaultRetriesSameStep(t *testing.T) {
	wantType := map[string]string{ProtocolOpenAI: "requests", ProtocolAnthropic: "rate_limit_error"}
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			srv := NewServer(t, Scenario{Steps: []Step{
				{Text: "first", Faults: []Fault{{Kind: FaultStatus, Status: 429, RetryAfter: "2"}}},
				Text("second"),
			}})
			resp := doPost(t, srv, p)
			if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
				t.Fatalf("status %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			if typ, _, _ := errorJSON(t, p, resp); typ != wantType[p.name] {
				t.Fatalf("error type %q", typ)
			}
			for _, want := range []string{"first", "second"} {
				_, events, err := streamOnce(t, srv.URL()+p.path, p.body())
				if got := streamText(t, p, events); err != nil || got != want {
					t.Fatalf("got %q, %v; want %q", got, err, want)
				}
			}
			reqs := srv.Requests()
			if len(reqs) != 3 || reqs[0].Fault != "status" || reqs[0].Status != 429 || reqs[0].Completed ||
				reqs[1].Index != 0 || reqs[1].Attempt != 2 || !reqs[1].Completed || reqs[2].Index != 1 {
				t.Fatalf("requests: %+v", reqs)
			}
		})
	}
}

func TestPermanentAndOverflowFaults(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			srv := NewServer(t, Scenario{Steps: []Step{
				{Faults: []Fault{{Kind: FaultContextOverflow}}},
				{Faults: []Fault{{Kind: FaultStatus, Status: 401}}, AlwaysFail: true},
			}})
			resp := doPost(t, srv, p)
			_, code, msg := errorJSON(t, p, resp)
			overflow := code == "context_length_exceeded" || strings.Contains(msg, "prompt is too long")
			if resp.StatusCode != 400 || !overflow {
				t.Fatalf("overflow reply %d %q %q", resp.StatusCode, code, msg)
			}
			_, _, _ = streamOnce(t, srv.URL()+p.path, p.body()) // step 0 attempt 2 succeeds
			for range 3 {
				if resp := doPost(t, srv, p); resp.StatusCode != 401 {
					t.Fatalf("status %d, want 401 every time", resp.StatusCode)
				}
			}
			if srv.StepsServed() != 1 {
				t.Fatalf("served %d", srv.StepsServed())
			}
		})
	}
}

func TestCutStreamEndsWithUnexpectedEOF(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			srv := NewServer(t, Scenario{Steps: []Step{{
				Text:   "a fairly long answer that spans many chunks",
				Faults: []Fault{{Kind: FaultCut, AfterChunks: 3}, {Kind: FaultCut, AfterChunks: 1000}},
			}}})
			for _, wantEvents := range []int{3, -1} {
				_, events, err := streamOnce(t, srv.URL()+p.path, p.body())
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("read error = %v, want unexpected EOF", err)
				}
				if terminated(events) || (wantEvents >= 0 && len(events) != wantEvents) {
					t.Fatalf("%d events, terminated=%v", len(events), terminated(events))
				}
			}
			_, events, err := streamOnce(t, srv.URL()+p.path, p.body())
			if err != nil || !terminated(events) {
				t.Fatalf("third attempt: %v", err)
			}
			reqs := srv.Requests()
			if reqs[0].Fault != "cut" || reqs[0].Completed || reqs[1].Fault != "cut" || !reqs[2].Completed {
				t.Fatalf("requests: %+v", reqs)
			}
		})
	}
}

func TestMalformedChunk(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			srv := NewServer(t, Scenario{Steps: []Step{{
				Text: "hello world", Faults: []Fault{{Kind: FaultMalformed, AfterChunks: 2}},
			}}})
			_, events, err := streamOnce(t, srv.URL()+p.path, p.body())
			if !errors.Is(err, io.ErrUnexpectedEOF) || len(events) != 3 {
				t.Fatalf("%d events, err %v", len(events), err)
			}
			if !json.Valid([]byte(events[1].data)) || json.Valid([]byte(events[2].data)) {
				t.Fatalf("events: %+v", events)
			}
		})
	}
}

func TestStreamErrorEvent(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			srv := NewServer(t, Scenario{Steps: []Step{{
				Text: "hello", Faults: []Fault{{Kind: FaultStreamError, AfterChunks: 1}},
			}}})
			_, events, err := streamOnce(t, srv.URL()+p.path, p.body())
			if err != nil || len(events) != 2 || terminated(events) {
				t.Fatalf("%+v, %v", events, err)
			}
			v := decode(t, events[1].data)
			e, _ := v["error"].(map[string]any)
			want := "server_error"
			if p.name == ProtocolAnthropic {
				want = "overloaded_error"
				if events[1].name != "error" || v["type"] != "error" {
					t.Fatalf("event %+v", events[1])
				}
			}
			if e["type"] != want {
				t.Fatalf("error event %s", events[1].data)
			}
		})
	}
}

func TestStallHoldsUntilClientLeaves(t *testing.T) {
	srv := NewServer(t, Scenario{Steps: []Step{{Text: "hello", Faults: []Fault{{Kind: FaultStall, AfterChunks: 2}}}}})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	resp := post(t, ctx, srv.OpenAIBaseURL()+"/chat/completions", openAIBody(true))
	defer resp.Body.Close()
	events, err := readSSE(resp.Body)
	if err == nil || len(events) != 2 || time.Since(start) < 200*time.Millisecond {
		t.Fatalf("%d events, err %v after %v", len(events), err, time.Since(start))
	}
	waitFor(t, func() bool { r := srv.Requests()[0]; return !r.End.IsZero() })
	if r := srv.Requests()[0]; r.Fault != "stall" || r.Completed {
		t.Fatalf("request: %s", r.summary())
	}
}

func TestCloseEndsStall(t *testing.T) {
	srv, err := Start(Scenario{Steps: []Step{{Text: "hello", Faults: []Fault{{Kind: FaultStall}}}}})
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan error, 1)
	body, _ := json.Marshal(anthropicBody())
	go func() { // no t.Fatal off the test goroutine: report through the channel
		resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(string(body)))
		if err == nil {
			defer resp.Body.Close()
			_, err = readSSE(resp.Body)
		}
		read <- err
	}()
	if _, err := srv.WaitRequests(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { srv.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Close hung on a stalled stream")
	}
	if err := <-read; err == nil {
		t.Fatal("client saw a clean end of a stalled stream")
	}
}

func TestSlowTokens(t *testing.T) {
	const delay = 15 * time.Millisecond
	srv := NewServer(t, Scenario{Steps: []Step{{Text: "abcdefghij", ChunkSize: 2, TokenDelay: delay}}})
	start := time.Now()
	_, events, err := streamOnce(t, srv.OpenAIBaseURL()+"/chat/completions", openAIBody(false))
	elapsed := time.Since(start)
	// role, 5 content chunks, finish, [DONE]: 8 events, 7 gaps.
	if err != nil || len(events) != 8 || elapsed < 7*delay {
		t.Fatalf("%d events in %v, err %v", len(events), elapsed, err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
