package llm

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzErrorBody classifies any error response a server (or a proxy in
// front of it) can send: a non-2xx body with any Retry-After headers, and
// an error object inside a stream. It never panics, the message is one
// line of bounded length, the wait asked for is within a day, and the API
// key never survives — even when the server echoes it back.
func FuzzErrorBody(f *testing.F) {
	const key = "sk-fuzz-KEY-0123456789"
	f.Add(401, `{"error":{"message":"Incorrect API key provided: sk-fuzz-KEY-0123456789","type":"invalid_request_error","code":"invalid_api_key"}}`, "", "")
	f.Add(429, `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, "1.5", "")
	f.Add(429, `{"error":"too many"}`, "Wed, 21 Oct 2015 07:28:00 GMT", "250")
	f.Add(400, `{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}`, "", "")
	f.Add(500, `<html><body>Bad gateway</body></html>`, "-1", "1e309")
	f.Add(503, `{"detail":{"msg":"sk-fuzz-KEY-0123456789"}}`, "NaN", "")
	f.Add(413, `{"message":"`+strings.Repeat("é", 400)+`"}`, "86401", "")
	f.Add(404, "plain text\nwith lines\tand\x00bytes "+key, "", "")
	f.Add(529, `{"error":{"message":"","type":"","code":529}}`, "", "")
	f.Fuzz(func(t *testing.T, status int, body, retryAfter, retryAfterMS string) {
		if status < 100 || status > 999 {
			status = 500 + status%100
			if status < 500 {
				status += 100
			}
		}
		h := http.Header{}
		h.Set("Retry-After", retryAfter)
		h.Set("Retry-After-Ms", retryAfterMS)
		// The key is echoed somewhere in the body, as some servers do.
		echoed := body[:len(body)/2] + key + body[len(body)/2:]
		resp := &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(echoed))}
		e := HTTPError("fuzz", resp, key, "FUZZ_API_KEY")
		check(t, e.Error(), e.Message, key)
		if e.RetryAfter < 0 || e.RetryAfter > 24*time.Hour {
			t.Fatalf("Retry-After %q / %q read as %v", retryAfter, retryAfterMS, e.RetryAfter)
		}
		if w := RetryAfter(h, time.Now()); w < 0 || w > 24*time.Hour {
			t.Fatalf("RetryAfter %v", w)
		}
		se := StreamError("fuzz", []byte(echoed), key)
		check(t, se.Error(), se.Message, key)
	})
}

func check(t *testing.T, full, msg, key string) {
	t.Helper()
	if strings.Contains(full, key) {
		t.Fatalf("the key survived: %q", full)
	}
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("message is not one line: %q", msg)
	}
	if utf8.RuneCountInString(msg) > maxMessage+1 {
		t.Fatalf("message of %d runes", utf8.RuneCountInString(msg))
	}
}
