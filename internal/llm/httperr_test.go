package llm

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	if got := Redact("key sk-1 and sk-1 again", "sk-1"); got != "key [REDACTED] and [REDACTED] again" {
		t.Fatalf("got %q", got)
	}
	if got := Redact("unchanged", ""); got != "unchanged" {
		t.Fatalf("got %q", got)
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-3"}}, 0},
		{http.Header{"Retry-After": {"NaN"}}, 0},
		{http.Header{"Retry-After": {"1e300"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
		{http.Header{}, 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.h, now); got != tt.want {
			t.Errorf("%v: got %v, want %v", tt.h, got, tt.want)
		}
	}
}

func TestErrorInfo(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, msg, kind string }{
		{`{"error":{"message":"bad","type":"invalid_request_error"}}`, "bad", "invalid_request_error"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded", "overloaded_error"},
		{`{"error":{"message":"x","code":429}}`, "x", "429"},
		// OpenRouter (recorded): the upstream's own reason and name.
		{`{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"moonshotai/kimi-k2-0905 is temporarily rate-limited upstream. Please retry shortly.","provider_name":"GMICloud"}},"user_id":"user_2z"}`,
			"Provider returned error: moonshotai/kimi-k2-0905 is temporarily rate-limited upstream. Please retry shortly. (upstream: GMICloud)", "429"},
		{`{"error":"model not found"}`, "model not found", ""},
		{`{"message":"plain"}`, "plain", ""},
		{`{"detail":"Not Found"}`, "Not Found", ""},
		{`{"detail":[{"msg":"field required"}]}`, `[{"msg":"field required"}]`, ""},
		{"upstream timed out\n", "upstream timed out", ""},
		{"<html>502</html>", "", ""},
	}
	for _, tt := range tests {
		msg, kind := errorInfo([]byte(tt.body))
		if msg != tt.msg || kind != tt.kind {
			t.Errorf("%s: got %q/%q, want %q/%q", tt.body, msg, kind, tt.msg, tt.kind)
		}
	}
}

func TestCleanNeverLeaksAKeyFragment(t *testing.T) {
	t.Parallel()
	key := "sk-abcdefghijklmnopqrstuvwxyz"
	for pad := range 40 {
		s := strings.Repeat("x", maxMessage-pad) + key + "\n tail"
		got := clean(s, key)
		if strings.Contains(got, "sk-abc") || strings.Contains(got, "\n") || len(got) > maxMessage+len("…") {
			t.Fatalf("pad %d: %q", pad, got)
		}
	}
}

func TestStreamErrorClassification(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body                string
		retryable, overflow bool
	}{
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, true, false},
		{`{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`, true, false},
		{`{"error":{"message":"Provider returned error","code":502}}`, true, false},
		{`{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 1 > 0"}}`, false, true},
		{`{"error":{"message":"This model's maximum context length is 65536 tokens."}}`, false, true},
		{`{"error":{"message":"content filtered","type":"content_filter"}}`, false, false},
	}
	for _, tt := range tests {
		e := StreamError("p", []byte(tt.body), "")
		if e.Retryable != tt.retryable || e.ContextOverflow != tt.overflow {
			t.Errorf("%s: retryable %v overflow %v", tt.body, e.Retryable, e.ContextOverflow)
		}
	}
}

func TestTransportError(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := TransportError(ctx, "p", errors.New("x"), ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}
	if err := TransportError(context.Background(), "p", refused, ""); !IsRetryable(err) {
		t.Fatalf("refused not retryable: %v", err)
	}
	nohost := &net.DNSError{Err: "no such host", Name: "api.example.invalid", IsNotFound: true}
	if err := TransportError(context.Background(), "p", nohost, ""); IsRetryable(err) {
		t.Fatalf("unknown host retryable: %v", err)
	}
}
