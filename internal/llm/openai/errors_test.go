package openai

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm"
)

func jsonReply(status int, body string, header map[string]string) reply {
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	return reply{status: status, body: body, header: h}
}

func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		reply      reply
		retryable  bool
		overflow   bool
		retryAfter time.Duration
		msg        string
	}{
		{
			name:  "401 echoes the key",
			reply: jsonReply(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, nil),
			msg:   "openai: HTTP 401: Incorrect API key provided: [REDACTED]. You can find your API key at https://platform.openai.com/account/api-keys. (check OPENAI_API_KEY or CODER_API_KEY)",
		},
		{
			name:       "429 Retry-After seconds",
			reply:      jsonReply(429, `{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 30000, Requested 500.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`, map[string]string{"Retry-After": "2"}),
			retryable:  true,
			retryAfter: 2 * time.Second,
			msg:        "Rate limit reached",
		},
		{
			name:       "429 retry-after-ms wins",
			reply:      jsonReply(429, `{"error":{"message":"slow down"}}`, map[string]string{"Retry-After": "2", "retry-after-ms": "1500"}),
			retryable:  true,
			retryAfter: 1500 * time.Millisecond,
			msg:        "slow down",
		},
		{
			name:      "500",
			reply:     jsonReply(500, `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`, nil),
			retryable: true,
			msg:       "HTTP 500: The server had an error",
		},
		{
			name:      "502 html page",
			reply:     reply{status: 502, body: "<html><body><h1>502 Bad Gateway</h1></body></html>", header: map[string]string{"Content-Type": "text/html"}},
			retryable: true,
			msg:       "HTTP 502: bad gateway",
		},
		{
			name:     "context length",
			reply:    jsonReply(400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, nil),
			overflow: true,
			msg:      "maximum context length is 128000",
		},
		{
			name:  "404 model",
			reply: jsonReply(404, `{"error":{"message":"The model `+"`gpt-9`"+` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, nil),
			msg:   "HTTP 404: The model `gpt-9` does not exist",
		},
		{
			name:  "ollama string error",
			reply: jsonReply(400, `{"error":"model \"llama9\" not found, try pulling it first"}`, nil),
			msg:   `model "llama9" not found`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := collect(t, newProvider(serve(t, tt.reply)), testReq)
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *llm.Error", err)
			}
			if e.Retryable != tt.retryable || e.ContextOverflow != tt.overflow || e.RetryAfter != tt.retryAfter {
				t.Fatalf("got retryable=%v overflow=%v retryAfter=%v: %v", e.Retryable, e.ContextOverflow, e.RetryAfter, e)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("message %q does not contain %q", err.Error(), tt.msg)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Fatalf("the key leaked: %q", err.Error())
			}
		})
	}
}

func TestConnectErrorRetryable(t *testing.T) {
	t.Parallel()
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: "http://127.0.0.1:1/v1", APIKey: testKey}})
	_, err := collect(t, p, testReq)
	if !llm.IsRetryable(err) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v", err)
	}
}

func TestJSONInsteadOfStream(t *testing.T) {
	t.Parallel()
	fs := serve(t, jsonReply(http.StatusOK, `{"error":{"message":"stream not supported","type":"invalid_request_error"}}`, nil))
	_, err := collect(t, newProvider(fs), testReq)
	if err == nil || llm.IsRetryable(err) || !strings.Contains(err.Error(), "stream not supported") {
		t.Fatalf("err = %v", err)
	}
}

func TestStreamLabelledJSON(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: textStream("ok") + done, header: map[string]string{"Content-Type": "application/json"}})
	ds, err := collect(t, newProvider(fs), testReq)
	if err != nil || accumulate(ds).Message().Content != "ok" {
		t.Fatalf("err = %v", err)
	}
}

func TestErrorsNameTheConfiguredProvider(t *testing.T) {
	t.Parallel()
	body := `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"qwen/qwen3-next-80b-a3b-instruct is temporarily rate-limited upstream.","provider_name":"GMICloud"}},"user_id":"user_2z"}`
	fs := serve(t, jsonReply(429, body, nil))
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url, APIKey: testKey, Label: "OpenRouter", KeyHint: "OPENROUTER_API_KEY"}, Model: "m"})
	_, err := collect(t, p, testReq)
	want := "OpenRouter: HTTP 429: Provider returned error: qwen/qwen3-next-80b-a3b-instruct is temporarily rate-limited upstream. (upstream: GMICloud)"
	if err == nil || err.Error() != want || !llm.IsRetryable(err) {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	fs = serve(t, reply{body: ck(`{"content":"a"}`, "") + "data: {\"choices\":[{\"delta\":{\"content\":\"b\"\n\n"})
	p = New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url, Label: "DeepSeek"}, Model: "m"})
	if _, err := collect(t, p, testReq); err == nil || !strings.HasPrefix(err.Error(), "DeepSeek: malformed stream event") {
		t.Fatalf("err = %v", err)
	}
}
