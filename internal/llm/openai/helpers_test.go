package openai

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

const testKey = "sk-test-0123456789abcdef"

// reply is one scripted HTTP answer.
type reply struct {
	status int
	header map[string]string
	body   string
	stall  time.Duration // sleep after writing body, before returning
	delay  time.Duration // sleep before answering at all
}

// captured is what the server received.
type captured struct {
	path   string
	header http.Header
	body   string
}

type fakeServer struct {
	url     string
	mu      sync.Mutex
	reqs    []captured
	replies []reply
}

// serve starts a server answering the replies in turn (the last repeats).
func serve(t *testing.T, replies ...reply) *fakeServer {
	t.Helper()
	fs := &fakeServer{replies: replies}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fs.mu.Lock()
		n := len(fs.reqs)
		fs.reqs = append(fs.reqs, captured{path: r.URL.Path, header: r.Header.Clone(), body: string(b)})
		rp := fs.replies[min(n, len(fs.replies)-1)]
		fs.mu.Unlock()
		select {
		case <-time.After(rp.delay):
		case <-r.Context().Done():
			return
		}
		for k, v := range rp.header {
			w.Header().Set(k, v)
		}
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		w.WriteHeader(cmpOr(rp.status, http.StatusOK))
		io.WriteString(w, rp.body)
		w.(http.Flusher).Flush()
		if rp.stall > 0 {
			select {
			case <-time.After(rp.stall):
			case <-r.Context().Done():
			}
		}
	}))
	t.Cleanup(hs.Close)
	fs.url = hs.URL + "/v1"
	return fs
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

func (fs *fakeServer) requests() []captured {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]captured(nil), fs.reqs...)
}

func newProvider(fs *fakeServer) *Provider {
	return New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url, APIKey: testKey}, Model: "gpt-test"})
}

var testReq = llm.Request{RunID: "run-1", ModelCallIndex: 3, Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}}

// collect runs one Stream call and checks the stream invariants: a
// provider's own deltas are bare, and through llm.WithRetry, which stamps
// their identity once, they carry Seq 1, 2, 3… with the request's ids; a
// nil error comes only after DeltaDone.
func collect(t *testing.T, p llm.Provider, req llm.Request) ([]chat.MessageDelta, error) {
	t.Helper()
	var ds []chat.MessageDelta
	err := p.Stream(context.Background(), req, func(d chat.MessageDelta) { ds = append(ds, d) })
	_, bare := p.(*Provider)
	for i, d := range ds {
		switch {
		case bare && (d.Seq != 0 || d.RunID != "" || d.ModelCallIndex != 0):
			t.Fatalf("delta %d = %+v: a provider's deltas carry no identity (llm.WithRetry stamps it)", i, d)
		case !bare && (d.Seq != i+1 || d.RunID != req.RunID || d.ModelCallIndex != req.ModelCallIndex):
			t.Fatalf("delta %d = %+v: want Seq %d, RunID %q, ModelCallIndex %d", i, d, i+1, req.RunID, req.ModelCallIndex)
		}
	}
	if err == nil && (len(ds) == 0 || ds[len(ds)-1].Kind != chat.DeltaDone) {
		t.Fatalf("Stream returned nil without ending in DeltaDone: %v", kinds(ds))
	}
	return ds, err
}

func accumulate(ds []chat.MessageDelta) *llm.Accumulator {
	var a llm.Accumulator
	for _, d := range ds {
		a.Add(d)
	}
	return &a
}

func kinds(ds []chat.MessageDelta) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Kind.String()
	}
	return out
}

// ck is one chat.completion.chunk in the exact shape OpenAI streams it.
func ck(delta, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return fmt.Sprintf(`data: {"id":"chatcmpl-9xY","object":"chat.completion.chunk","created":1718000000,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_abc123","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}],"usage":null}`+"\n\n", delta, f)
}

// usageChunk is the last chunk sent with stream_options.include_usage.
func usageChunk(prompt, completion, cached int) string {
	return fmt.Sprintf(`data: {"id":"chatcmpl-9xY","object":"chat.completion.chunk","created":1718000000,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_abc123","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`+"\n\n", prompt, completion, prompt+completion, cached)
}

const done = "data: [DONE]\n\n"

func textStream(parts ...string) string {
	var b strings.Builder
	b.WriteString(ck(`{"role":"assistant","content":"","refusal":null}`, ""))
	for _, p := range parts {
		b.WriteString(ck(fmt.Sprintf(`{"content":%q}`, p), ""))
	}
	b.WriteString(ck(`{}`, "stop"))
	return b.String()
}
