package llm_test

// The idle timer counts progress, not bytes: these run each real provider
// against the fake server over loopback, speaking each wire's keep-alives.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/anthropic"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/llm/responses"
)

type timeouts struct{ first, idle, call time.Duration }

var wires = []struct {
	name string
	new  func(srv *llmtest.Server, to timeouts) llm.Provider
}{
	{"openai", func(srv *llmtest.Server, to timeouts) llm.Provider {
		return openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL(), Label: "Fake", Timeout: to.first, IdleTimeout: to.idle, CallTimeout: to.call}, Model: "m"})
	}},
	{"anthropic", func(srv *llmtest.Server, to timeouts) llm.Provider {
		return anthropic.New(anthropic.Config{Endpoint: llm.Endpoint{BaseURL: srv.URL(), Label: "Fake", Timeout: to.first, IdleTimeout: to.idle, CallTimeout: to.call}, Model: "m"})
	}},
	{"responses", func(srv *llmtest.Server, to timeouts) llm.Provider {
		return responses.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL(), Label: "Fake", Timeout: to.first, IdleTimeout: to.idle, CallTimeout: to.call}, Model: "m"})
	}},
}

// run streams one call, failing the test if it outlives limit (the old
// behaviour: keep-alives re-armed the timer, so the call never ended).
func run(t *testing.T, p llm.Provider, limit time.Duration) (string, error, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	var text strings.Builder
	start := time.Now()
	err := p.Stream(ctx, llm.Request{RunID: "r", Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}},
		func(d chat.MessageDelta) {
			if d.Kind == chat.DeltaText {
				text.WriteString(d.Text)
			}
		})
	if ctx.Err() != nil {
		t.Fatalf("the call was still running after %v (err %v)", limit, err)
	}
	return text.String(), err, time.Since(start)
}

// TestKeepAlivesDoNotHoldTheStream: a server that answers a little and then
// only sends keep-alives (comments, empty data, pings) ends at the idle
// timeout with a retryable stall, and so does one that never answers.
func TestKeepAlivesDoNotHoldTheStream(t *testing.T) {
	t.Parallel()
	for _, w := range wires {
		for _, after := range []int{0, 8} {
			t.Run(fmt.Sprintf("%s/after%d", w.name, after), func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: "hello there, friend", ChunkSize: 2,
					Faults: []llmtest.Fault{{Kind: llmtest.FaultKeepAlive, AfterChunks: after, Every: 10 * time.Millisecond}}}}})
				to := timeouts{first: 400 * time.Millisecond, idle: 400 * time.Millisecond}
				_, err, took := run(t, w.new(srv, to), 20*time.Second)
				if !llm.IsRetryable(err) || !errors.Is(err, llm.ErrStreamCut) && after > 0 {
					t.Fatalf("err = %v", err)
				}
				want := "stalled: no progress for 400ms"
				if after == 0 {
					want = "no response from the server within 400ms"
				}
				if !strings.HasPrefix(err.Error(), "Fake: ") || !strings.Contains(err.Error(), want) {
					t.Fatalf("err = %v, want %q", err, want)
				}
				if took < 400*time.Millisecond {
					t.Fatalf("ended after %v, before the idle timeout", took)
				}
			})
		}
	}
}

// TestSlowProgressIsNotCut: a stream whose every event comes slowly, and
// whose whole length is many idle timeouts, completes.
func TestSlowProgressIsNotCut(t *testing.T) {
	t.Parallel()
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			const answer = "slow but steady answer"
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: answer, ChunkSize: 2, TokenDelay: 150 * time.Millisecond}}})
			to := timeouts{first: 2 * time.Second, idle: 1500 * time.Millisecond}
			text, err, took := run(t, w.new(srv, to), time.Minute)
			if err != nil || text != answer {
				t.Fatalf("text %q, err %v", text, err)
			}
			// 11 text chunks alone are 11 gaps of 150ms: longer than one idle timeout.
			if took < to.idle {
				t.Fatalf("took %v: the stream was not longer than the idle timeout, the test proves nothing", took)
			}
		})
	}
}

// TestCallTimeout: a stream that progresses steadily but outlasts the
// call bound fails with a provider-named error that is not retried.
func TestCallTimeout(t *testing.T) {
	t.Parallel()
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: strings.Repeat("word ", 200), ChunkSize: 3, TokenDelay: 20 * time.Millisecond}}})
			to := timeouts{first: 5 * time.Second, idle: 5 * time.Second, call: 500 * time.Millisecond}
			p := llm.WithRetry(w.new(srv, to), llm.RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond})
			_, err, took := run(t, p, 30*time.Second)
			if err == nil || llm.IsRetryable(err) || !strings.HasPrefix(err.Error(), "Fake: ") ||
				!strings.Contains(err.Error(), "longer than 500ms") || !strings.Contains(err.Error(), "call_timeout_ms") {
				t.Fatalf("err = %v", err)
			}
			if took < 500*time.Millisecond {
				t.Fatalf("stopped after %v", took)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("%d requests: a call timeout was retried", n)
			}
		})
	}
}
