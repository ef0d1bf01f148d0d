package replay

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/anthropic"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/llm/responses"
)

// meta is a recording's meta.json (see the tarball's README.md).
type meta struct {
	File         string `json:"file"`
	Provider     string `json:"provider"`
	Protocol     string `json:"protocol"`
	Status       int    `json:"status"`
	ContentType  string `json:"content_type"`
	RequestModel string `json:"request_model"`
	Kind         string `json:"kind"`
	Origin       string `json:"origin"`
}

type recording struct {
	meta
	body []byte
}

// load reads every recording from the tarball.
func load(t *testing.T) []recording {
	t.Helper()
	f, err := os.Open("testdata/realstreams.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[strings.TrimPrefix(h.Name, "realstreams/")] = b
	}
	var metas []meta
	if err := json.Unmarshal(files["manifest.json"], &metas); err != nil {
		t.Fatal(err)
	}
	// The Responses API recordings, kept apart (realstreams has none).
	b, err := os.ReadFile("testdata/responses/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var more []meta
	if err := json.Unmarshal(b, &more); err != nil {
		t.Fatal(err)
	}
	for _, m := range more {
		if files[m.File], err = os.ReadFile("testdata/" + m.File); err != nil {
			t.Fatal(err)
		}
	}
	metas = append(metas, more...)
	var out []recording
	for _, m := range metas {
		b, ok := files[m.File]
		if !ok {
			t.Fatalf("manifest names %s, not in the tarball", m.File)
		}
		out = append(out, recording{meta: m, body: b})
	}
	return out
}

// catalogOf maps a recording's endpoint to the catalog provider coder
// would resolve for it (internal/llm/catalog.ProviderFor).
var catalogOf = map[string]string{
	"openrouter": "openrouter", "anthropic": "anthropic", "vertex-anthropic": "anthropic", "openai": "openai",
	"deepseek": "deepseek", "moonshot": "moonshotai", "zai": "zai", "xai": "xai", "groq": "groq",
	"mistral": "mistral", "qwen": "alibaba", "cerebras": "cerebras", "vercel-gateway": "vercel",
}

// server serves each recording at /r/<n>/…: the first request gets the
// recording, later ones (the continuation) a short text answer; every
// request body is kept, and the path of the first.
type server struct {
	*httptest.Server
	mu     sync.Mutex
	recs   []recording
	bodies map[int][]string
	paths  map[int]string
}

func newServer(t *testing.T, recs []recording) *server {
	s := &server{recs: recs, bodies: map[int][]string{}, paths: map[int]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

func (s *server) handle(w http.ResponseWriter, r *http.Request) {
	var n int
	if _, err := fmt.Sscanf(r.URL.Path, "/r/%d/", &n); err != nil || n >= len(s.recs) {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies[n] = append(s.bodies[n], string(body))
	first := len(s.bodies[n]) == 1
	if first {
		s.paths[n] = r.URL.Path
	}
	s.mu.Unlock()
	rec := s.recs[n]
	if !first {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, shortAnswer(rec.Protocol))
		return
	}
	w.Header().Set("Content-Type", rec.ContentType)
	w.WriteHeader(rec.Status)
	// Every other recording arrives in small pieces, so parsers must
	// reassemble events across reads.
	step := len(rec.body)
	if n%2 == 1 {
		step = 61
	}
	rc := http.NewResponseController(w)
	for b := rec.body; len(b) > 0; {
		k := min(step, len(b))
		if _, err := w.Write(b[:k]); err != nil {
			return
		}
		_ = rc.Flush()
		b = b[k:]
	}
}

// path is the path recording n was first asked for at.
func (s *server) path(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.paths[n]
}

func shortAnswer(protocol string) string {
	if protocol == "responses" {
		return "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"ok\"}\n\n" +
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\"}}\n\n"
	}
	if protocol == "anthropic" {
		return "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n" +
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	}
	return "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
}

func (s *server) provider(n int) llm.Provider {
	rec := s.recs[n]
	base := fmt.Sprintf("%s/r/%d", s.URL, n)
	cat := catalogOf[rec.Provider]
	switch rec.Protocol {
	case "anthropic":
		return anthropic.New(anthropic.Config{Endpoint: llm.Endpoint{BaseURL: base, APIKey: "sk-ant-replay", Catalog: cat, Label: rec.Provider}, Model: rec.RequestModel})
	case "responses":
		return responses.New(responses.Config{Endpoint: llm.Endpoint{BaseURL: base + "/v1", APIKey: "sk-replay", Catalog: cat, Label: rec.Provider}, Model: rec.RequestModel})
	}
	return openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: base + "/v1", APIKey: "sk-replay", Catalog: cat, Label: rec.Provider}, Model: rec.RequestModel})
}

// outcome is one recording's result, for the summary.
type outcome struct {
	rec          recording
	want         expected
	exact        bool
	continuation string // the rule checked, "" when none applied
	problem      string
}

func TestReplayRealRecordings(t *testing.T) {
	recs := load(t)
	srv := newServer(t, recs)
	results := make([]outcome, len(recs))
	t.Run("recordings", func(t *testing.T) {
		for i := range recs {
			name := strings.TrimSuffix(strings.TrimSuffix(recs[i].File, ".sse"), ".body")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				results[i] = replay(srv, i)
				if results[i].problem != "" {
					t.Error(results[i].problem)
				}
			})
		}
	})
	summarize(t, results)
}

// replay streams recording n, compares with the reference reading and,
// when it holds tool calls, checks the continuation.
func replay(srv *server, n int) outcome {
	rec := srv.recs[n]
	out := outcome{rec: rec}
	p := srv.provider(n)
	var acc llm.Accumulator
	req := llm.Request{RunID: "replay", Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}}
	err := p.Stream(context.Background(), req, func(d chat.MessageDelta) { acc.Add(d) })
	if rec.Kind == "http_error" {
		out.problem = checkHTTPError(rec, err)
		out.exact = out.problem == ""
		return out
	}
	var want expected
	switch rec.Protocol {
	case "anthropic":
		want = readAnthropic(rec.body)
	case "responses":
		want = readResponses(rec.body)
	default:
		want = readOpenAI(rec.body)
	}
	out.want = want
	if out.problem = compare(want, &acc, err); out.problem != "" {
		return out
	}
	out.exact = true
	if want.err || len(want.calls) == 0 {
		return out
	}
	out.continuation, out.problem = continuation(srv, n, p, acc.Message(), want)
	return out
}

// compare holds what the provider made of a stream to the reference.
func compare(want expected, acc *llm.Accumulator, err error) string {
	if want.err {
		var e *llm.Error
		if err == nil || !errors.As(err, &e) || e.Message == "" {
			return fmt.Sprintf("the stream is incomplete or reports an error, but the provider returned %v", err)
		}
		return ""
	}
	if err != nil {
		return fmt.Sprintf("the stream is complete, but the provider failed: %v", err)
	}
	m := acc.Message()
	var problems []string
	check := func(what string, got, w any) {
		if !reflect.DeepEqual(got, w) {
			problems = append(problems, fmt.Sprintf("%s:\n  got  %#v\n  want %#v", what, got, w))
		}
	}
	check("text", m.Content, want.text)
	check("reasoning", m.Reasoning, want.reasoning)
	check("tool calls", stripExtra(m.ToolCalls), want.calls)
	check("usage", acc.Usage(), want.usage)
	check("stop reason", acc.StopReason(), want.stop)
	if want.thinking != nil {
		check("thinking blocks", normalized(thinkingOf(m.ReasoningBlocks)), normalized(want.thinking))
	}
	return strings.Join(problems, "\n")
}

func stripExtra(calls []chat.ToolCall) []chat.ToolCall {
	out := make([]chat.ToolCall, len(calls))
	for i, c := range calls {
		c.Extra = ""
		out[i] = c
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func thinkingOf(bs []chat.ReasoningBlock) []chat.ReasoningBlock {
	var out []chat.ReasoningBlock
	for _, b := range bs {
		if b.Kind == chat.ReasoningThinking || b.Kind == chat.ReasoningRedacted {
			out = append(out, b)
		}
	}
	return out
}

// normalized re-encodes Raw so key order does not matter.
func normalized(bs []chat.ReasoningBlock) []chat.ReasoningBlock {
	out := make([]chat.ReasoningBlock, len(bs))
	for i, b := range bs {
		if b.Raw != "" {
			var v any
			_ = json.Unmarshal([]byte(b.Raw), &v)
			b.Raw = chat.RawJSON(mustJSON(v))
		}
		out[i] = b
	}
	return out
}

// checkHTTPError: a recorded error response is an *llm.Error with its
// status, its own message (an OpenRouter upstream's too), and the right
// retry decision.
func checkHTTPError(rec recording, err error) string {
	var e *llm.Error
	if !errors.As(err, &e) {
		return fmt.Sprintf("HTTP %d: got %v, want an *llm.Error", rec.Status, err)
	}
	var body struct {
		Error struct {
			Message  string `json:"message"`
			Metadata struct {
				Raw string `json:"raw"`
			} `json:"metadata"`
		} `json:"error"`
	}
	_ = json.Unmarshal(rec.body, &body)
	msg := strings.Join(strings.Fields(body.Error.Message), " ")
	retry := rec.Status == 429 || rec.Status >= 500
	switch {
	case e.Status != rec.Status:
		return fmt.Sprintf("status %d, want %d", e.Status, rec.Status)
	case !strings.HasPrefix(err.Error(), rec.Provider+": "):
		return fmt.Sprintf("%q does not name the provider %s", err, rec.Provider)
	case !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), body.Error.Metadata.Raw):
		return fmt.Sprintf("%q lost the provider's detail %q %q", err, msg, body.Error.Metadata.Raw)
	case e.Retryable != retry:
		return fmt.Sprintf("retryable = %v for HTTP %d", e.Retryable, rec.Status)
	}
	return ""
}

// summarize logs the figures and fails when any recording was not exact.
func summarize(t *testing.T, results []outcome) {
	byOrigin := map[string][2]int{}
	rules := map[string]int{}
	var withText, withReasoning, withCalls, withUsage, withErr, truncated int
	for _, r := range results {
		w := r.want
		count := func(n *int, b bool) {
			if b {
				*n++
			}
		}
		count(&withText, w.text != "")
		count(&withReasoning, w.reasoning != "")
		count(&withCalls, len(w.calls) > 0)
		count(&withUsage, !w.usage.IsZero())
		count(&withErr, w.err || r.rec.Kind == "http_error")
		count(&truncated, w.stop == "length" || w.stop == "max_tokens")
		key := r.rec.Origin
		if r.rec.Protocol == "responses" {
			key += ", Responses API"
		}
		c := byOrigin[key]
		c[0]++
		if r.exact && r.problem == "" {
			c[1]++
		}
		byOrigin[key] = c
		if r.continuation != "" {
			rules[r.continuation]++
		}
	}
	var lines []string
	total, exact := 0, 0
	for o, c := range byOrigin {
		lines = append(lines, fmt.Sprintf("  %-26s %4d recordings, %4d exact", o, c[0], c[1]))
		total, exact = total+c[0], exact+c[1]
	}
	sort.Strings(lines)
	var rl []string
	for r, n := range rules {
		rl = append(rl, fmt.Sprintf("  %4d  %s", n, r))
	}
	sort.Strings(rl)
	t.Logf("replayed %d recordings, %d exact:\n%s\nthey hold text %d, reasoning %d, tool calls %d, usage %d, errors %d, truncation %d\ncontinuations checked:\n%s",
		total, exact, strings.Join(lines, "\n"), withText, withReasoning, withCalls, withUsage, withErr, truncated, strings.Join(rl, "\n"))
}
