//go:build e2e

package e2e

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// otlpReceiver is an OTLP/HTTP collector in miniature: it decodes what
// coder exports with the official protobuf types.
type otlpReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	traces  []*coltracepb.ExportTraceServiceRequest
	metrics []*colmetricpb.ExportMetricsServiceRequest
	bad     []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(r.handle))
	t.Cleanup(r.Close)
	return r
}

func (r *otlpReceiver) handle(w http.ResponseWriter, req *http.Request) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, _ := io.ReadAll(body)
	r.mu.Lock()
	defer r.mu.Unlock()
	var resp proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		m := &coltracepb.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(raw, m); err != nil {
			r.bad = append(r.bad, err.Error())
		}
		r.traces = append(r.traces, m)
		resp = &coltracepb.ExportTraceServiceResponse{}
	case "/v1/metrics":
		m := &colmetricpb.ExportMetricsServiceRequest{}
		if err := proto.Unmarshal(raw, m); err != nil {
			r.bad = append(r.bad, err.Error())
		}
		r.metrics = append(r.metrics, m)
		resp = &colmetricpb.ExportMetricsServiceResponse{}
	default:
		r.bad = append(r.bad, "unexpected path "+req.URL.Path)
		http.NotFound(w, req)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *otlpReceiver) spans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*tracepb.Span
	for _, req := range r.traces {
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	return out
}

// metricValues sums each metric's points by name and attributes
// ("coder.tool.calls{outcome=ok,tool.name=read}"); a histogram counts.
func (r *otlpReceiver) metricValues() map[string]float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]float64{}
	for _, req := range r.metrics {
		for _, rm := range req.ResourceMetrics {
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if s := m.GetSum(); s != nil {
						for _, p := range s.DataPoints {
							out[m.Name+attrKey(p.Attributes)] = p.GetAsDouble() + float64(p.GetAsInt())
						}
					}
					if h := m.GetHistogram(); h != nil {
						for _, p := range h.DataPoints {
							out[m.Name+attrKey(p.Attributes)] = float64(p.Count)
						}
					}
				}
			}
		}
	}
	return out
}

func attrKey(kvs []*commonpb.KeyValue) string {
	var parts []string
	for _, kv := range kvs {
		v := kv.Value.GetStringValue()
		if b, ok := kv.Value.Value.(*commonpb.AnyValue_BoolValue); ok {
			v = strconv.FormatBool(b.BoolValue)
		}
		parts = append(parts, kv.Key+"="+v)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func spanAttr(s *tracepb.Span, key string) *commonpb.AnyValue {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

// telemetryScenario is a turn whose first model call asks for two tools:
// a script that writes outside the workspace (the sandbox refuses it) and
// a read; the second answers.
func telemetryScenario() llmtest.Scenario {
	return llmtest.Scenario{Steps: []llmtest.Step{
		{ToolCalls: []llmtest.ToolCall{llmtest.Call("bash", `{"command":"bash w.sh"}`), llmtest.Call("read", `{"path":"notes.txt"}`)},
			Usage: chat.Usage{InputTokens: 1000, OutputTokens: 50}},
		{Text: "The notes say TOOL-OUTPUT-MARK.", Usage: chat.Usage{InputTokens: 1200, OutputTokens: 10}},
	}}
}

func telemetryWorkspace(t *testing.T) (dir string) {
	dir = t.TempDir()
	outside := t.TempDir()
	writeFile(t, dir, "w.sh", "echo x > "+filepath.Join(outside, "x")+"\n")
	writeFile(t, dir, "notes.txt", "TOOL-OUTPUT-MARK\n")
	return dir
}

// TestTelemetryExportsOverOTLP: with telemetry on, a headless turn exports
// spans (the turn, its two model calls, the two tool calls under the first)
// and metrics with the expected names and values to an OTLP/HTTP endpoint
// named by the standard variable; no prompt or tool output unless
// log_content; and nothing at all when telemetry is off.
func TestTelemetryExportsOverOTLP(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	srv := llmtest.NewServer(t, telemetryScenario())
	rcv := newOTLPReceiver(t)
	env := providerEnv(t, srv, "openai")
	env["OTEL_EXPORTER_OTLP_ENDPOINT"] = rcv.URL

	// Off (the default): the endpoint hears nothing.
	dir := telemetryWorkspace(t)
	if res := (run{args: []string{"-p", "read the SECRET-PROMPT-MARK notes"}, env: env, dir: dir}).exec(t); res.code != 0 {
		t.Fatalf("coder -p: %d %s", res.code, res.stderr)
	}
	if len(rcv.spans()) != 0 || len(rcv.metricValues()) != 0 {
		t.Fatal("telemetry was exported while off")
	}

	env["CODER_ENABLE_TELEMETRY"] = "1"
	env["CODER_BASE_URL"] = llmtest.NewServer(t, telemetryScenario()).URL() + "/v1"
	res := run{args: []string{"-p", "read the SECRET-PROMPT-MARK notes"}, env: env, dir: dir}.exec(t)
	if res.code != 0 || strings.Contains(res.stderr, "telemetry") {
		t.Fatalf("coder -p with telemetry: %d %s", res.code, res.stderr)
	}
	if len(rcv.bad) > 0 {
		t.Fatalf("the receiver could not decode: %v", rcv.bad)
	}
	checkTurnSpans(t, rcv.spans())
	got := rcv.metricValues()
	for k, want := range map[string]float64{
		"coder.session.count{resumed=false}":              1,
		"coder.turn.count{state=completed}":               1,
		"coder.token.usage{model=fake-model,type=input}":  2200,
		"coder.token.usage{model=fake-model,type=output}": 60,
		"coder.model.latency{model=fake-model}":           2,
		"coder.tool.calls{outcome=failed,tool.name=bash}": 1,
		"coder.tool.calls{outcome=ok,tool.name=read}":     1,
		"coder.tool.duration{tool.name=read}":             1,
		"coder.sandbox.refusals{tool.name=bash}":          1,
	} {
		if got[k] != want {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], want, got)
		}
	}
	for _, s := range rcv.spans() {
		for _, kv := range s.Attributes {
			if v := kv.Value.GetStringValue(); strings.Contains(v, "SECRET-PROMPT-MARK") || strings.Contains(v, "TOOL-OUTPUT-MARK") {
				t.Fatalf("content exported without log_content: %s=%q", kv.Key, v)
			}
		}
	}

	// With log_content the prompt and the tool output are in the spans.
	rcv2 := newOTLPReceiver(t)
	env["OTEL_EXPORTER_OTLP_ENDPOINT"] = rcv2.URL
	env["CODER_BASE_URL"] = llmtest.NewServer(t, telemetryScenario()).URL() + "/v1"
	writeFile(t, filepath.Join(env["XDG_CONFIG_HOME"], "coder"), "config.json", `{"telemetry": {"log_content": true}}`)
	if res := (run{args: []string{"-p", "read the SECRET-PROMPT-MARK notes"}, env: env, dir: dir}).exec(t); res.code != 0 {
		t.Fatalf("coder -p with log_content: %d %s", res.code, res.stderr)
	}
	var all strings.Builder
	for _, s := range rcv2.spans() {
		for _, kv := range s.Attributes {
			all.WriteString(kv.Value.GetStringValue() + "\n")
		}
	}
	if !strings.Contains(all.String(), "SECRET-PROMPT-MARK") || !strings.Contains(all.String(), "TOOL-OUTPUT-MARK") {
		t.Fatalf("log_content did not export the prompt and output:\n%s", all.String())
	}
}

// checkTurnSpans: one turn span; two model calls under it; the two tool
// calls under the first model call.
func checkTurnSpans(t *testing.T, spans []*tracepb.Span) {
	t.Helper()
	byName := map[string][]*tracepb.Span{}
	for _, s := range spans {
		byName[s.Name] = append(byName[s.Name], s)
	}
	turns, calls := byName["coder.turn"], byName["chat fake-model"]
	if len(turns) != 1 || len(calls) != 2 || len(byName["bash"]) != 1 || len(byName["read"]) != 1 {
		var names []string
		for _, s := range spans {
			names = append(names, s.Name)
		}
		t.Fatalf("spans %v", names)
	}
	turn := turns[0]
	first := calls[0]
	if calls[1].StartTimeUnixNano < first.StartTimeUnixNano {
		first = calls[1]
	}
	for _, c := range calls {
		if !bytes.Equal(c.ParentSpanId, turn.SpanId) || !bytes.Equal(c.TraceId, turn.TraceId) {
			t.Fatal("a model call is not under the turn")
		}
	}
	for _, tool := range []string{"bash", "read"} {
		if !bytes.Equal(byName[tool][0].ParentSpanId, first.SpanId) {
			t.Fatalf("%s is not under the model call that asked for it", tool)
		}
	}
	if v := spanAttr(byName["bash"][0], "coder.sandbox.refused"); v == nil || !v.GetBoolValue() {
		t.Fatal("the bash span does not say the sandbox refused it")
	}
	if v := spanAttr(turn, "coder.turn.state"); v.GetStringValue() != "completed" {
		t.Fatalf("turn state %v", v)
	}
	if v := spanAttr(first, "gen_ai.usage.output_tokens"); v.GetIntValue() != 50 {
		t.Fatalf("first call's output tokens %v", v)
	}
}
