//go:build e2e

package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// A server that keeps the connection alive with pings but never answers
// must not hang coder: keep-alives are not progress, so the idle timeout
// fires, the retries run out, and coder exits with a clear error.
func TestProviderKeepAlivesForeverEnd(t *testing.T) {
	t.Parallel()
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{
				Text:       "a few words and then nothing but pings",
				Faults:     []llmtest.Fault{{Kind: llmtest.FaultKeepAlive, AfterChunks: 4, Every: 20 * time.Millisecond}},
				AlwaysFail: true,
			}}})
			dir := t.TempDir()
			writeConfig(t, dir, fastProvider(1, 500))
			m := run{args: []string{"-p", "hi"}, env: providerEnv(t, srv, protocol), dir: dir}.execMeasured(t, 60*time.Second)
			assertFailedReadably(t, m.result, "keep-alives do not count")
			// A custom endpoint is named by its host.
			if host := strings.TrimPrefix(srv.URL(), "http://"); !strings.Contains(m.stderr, "coder: "+host+": ") {
				t.Errorf("the error does not name the endpoint %s:\n%s", host, m.stderr)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d requests, want 2 (max_retries 1)", n)
			}
		})
	}
}

// A stream that keeps progressing but outlasts provider.call_timeout_ms
// fails once, without retries, with an error naming the setting.
func TestProviderCallTimeout(t *testing.T) {
	t.Parallel()
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{
				Text: strings.Repeat("slow words ", 300), ChunkSize: 3, TokenDelay: 20 * time.Millisecond,
			}}})
			dir := t.TempDir()
			writeConfig(t, dir, `{"provider": {"max_retries": 3, "timeout_ms": 10000, "call_timeout_ms": 1500}}`)
			m := run{args: []string{"-p", "hi"}, env: providerEnv(t, srv, protocol), dir: dir}.execMeasured(t, 60*time.Second)
			assertFailedReadably(t, m.result, "call_timeout_ms")
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests: a call timeout was retried", n)
			}
			if m.elapsed < 1500*time.Millisecond {
				t.Errorf("gave up after %v, before the bound", m.elapsed)
			}
		})
	}
}
