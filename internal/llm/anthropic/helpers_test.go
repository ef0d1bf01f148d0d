package anthropic

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

const testKey = "sk-ant-api03-test0123456789"

// reply is one scripted HTTP answer.
type reply struct {
	status int
	header map[string]string
	body   string
	stall  time.Duration // sleep after writing body, before returning
}

// captured is what the server received.
type captured struct {
	path   string
	query  string
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
		fs.reqs = append(fs.reqs, captured{path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone(), body: string(b)})
		rp := fs.replies[min(n, len(fs.replies)-1)]
		fs.mu.Unlock()
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
	fs.url = hs.URL
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
	return New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url, APIKey: testKey}, Model: "claude-test"})
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

// ev is one event exactly as the Messages API streams it.
func ev(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

func messageStart(input, cacheRead, cacheWrite int) string {
	return ev("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5-20250929","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":1}}}`, input, cacheWrite, cacheRead))
}

func messageEnd(stop string, output int) string {
	return ev("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":"%s","stop_sequence":null},"usage":{"output_tokens":%d}}`, stop, output)) +
		ev("message_stop", `{"type":"message_stop"}`)
}

func textDelta(i int, s string) string {
	return ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%q}}`, i, s))
}

func blockStop(i int) string {
	return ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
}

const ping = "event: ping\ndata: {\"type\": \"ping\"}\n\n"
