package telemetry

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
)

// harness is a sink over the SDK's own in-memory span recorder and manual
// metric reader.
type harness struct {
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	sink   *sink
}

func newHarness(t *testing.T, o SinkOptions) *harness {
	t.Helper()
	h := &harness{spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(h.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(h.reader))
	inst, err := newInstruments(mp.Meter("test"))
	if err != nil {
		t.Fatal(err)
	}
	h.sink = newSink(tp.Tracer("test"), inst, o)
	return h
}

// turnEvents are a turn as the core reports it: a model call asking for
// two tools (bash refused by the sandbox, a write the policy denied), a
// subagent's model call under a task call, and the answer.
func turnEvents() []event.Event {
	u := chat.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 50}
	return []event.Event{
		event.SessionStarted{SessionID: "s1", Model: "m1", Agent: "build", Mode: "build"},
		event.StateChanged{From: event.StateIdle, To: event.StatePreparing},
		event.TurnStarted{RunID: "s1-r1", Input: "fix the SECRET bug"},
		event.StateChanged{To: event.StateModelRunning},
		event.AssistantMessage{ModelCallIndex: 0, Usage: u, StopReason: "tool_calls",
			Message: chat.Message{ToolCalls: []chat.ToolCall{{ID: "a"}, {ID: "b"}, {ID: "c"}}}},
		event.ToolStarted{CallID: "a", Name: "bash", Args: `{"command":"cat ~/.ssh/id"}`},
		event.ToolFinished{CallID: "a", Name: "bash", OK: false, Result: "TOOL OUTPUT", SandboxRefused: true},
		event.ToolFinished{CallID: "b", Name: "write", OK: false, Args: `{"path":"x"}`, Summary: "denied"},
		event.ToolStarted{CallID: "c", Name: "task"},
		event.Subagent{ID: "1", Agent: "explore", Event: event.StateChanged{To: event.StateModelRunning}},
		event.Subagent{ID: "1", Agent: "explore", Event: event.AssistantMessage{Usage: chat.Usage{InputTokens: 10, OutputTokens: 1}}},
		event.ToolFinished{CallID: "c", Name: "task", OK: true},
		event.StateChanged{To: event.StateModelRunning},
		event.AssistantMessage{ModelCallIndex: 1, Usage: u, StopReason: "stop"},
		event.TurnFinished{RunID: "s1-r1", State: event.StateCompleted, Result: "THE ANSWER", Steps: 2, Usage: u},
	}
}

func TestSpansOfATurn(t *testing.T) {
	h := newHarness(t, SinkOptions{})
	for _, e := range turnEvents() {
		h.sink.Emit(e)
	}
	spans := h.spans.Ended()
	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	turn, calls := byName["coder.turn"], byName["chat m1"]
	if len(turn) != 1 || len(calls) != 3 || len(byName["bash"]) != 1 || len(byName["write"]) != 1 || len(byName["task"]) != 1 {
		t.Fatalf("spans: %v", names(spans))
	}
	root := turn[0].SpanContext().SpanID()
	first := calls[0]
	if first.Parent().SpanID() != root {
		t.Fatal("the first model call is not under the turn")
	}
	for _, tool := range []string{"bash", "write", "task"} {
		if byName[tool][0].Parent().SpanID() != first.SpanContext().SpanID() {
			t.Fatalf("%s is not under the model call that asked for it", tool)
		}
	}
	// The subagent's model call hangs under its task call.
	var sub sdktrace.ReadOnlySpan
	for _, c := range calls {
		if c.Parent().SpanID() == byName["task"][0].SpanContext().SpanID() {
			sub = c
		}
	}
	if sub == nil {
		t.Fatal("the subagent's model call is not under the task call")
	}
	if v := attr(byName["bash"][0], "coder.tool.outcome"); v != "failed" {
		t.Fatalf("bash outcome %q", v)
	}
	if v := attr(byName["write"][0], "coder.tool.outcome"); v != "refused" {
		t.Fatalf("write outcome %q", v)
	}
	// No content without log_content: neither the prompt, the answer, the
	// arguments nor the output.
	for _, s := range spans {
		for _, kv := range s.Attributes() {
			v := kv.Value.String()
			if strings.Contains(v, "SECRET") || strings.Contains(v, "ANSWER") || strings.Contains(v, "TOOL OUTPUT") || strings.Contains(v, "ssh") {
				t.Fatalf("content exported without log_content: %s=%s", kv.Key, v)
			}
		}
	}
}

func TestContentOnlyWithLogContent(t *testing.T) {
	h := newHarness(t, SinkOptions{LogContent: true})
	for _, e := range turnEvents() {
		h.sink.Emit(e)
	}
	var all strings.Builder
	for _, s := range h.spans.Ended() {
		for _, kv := range s.Attributes() {
			all.WriteString(kv.Value.String() + "\n")
		}
	}
	for _, want := range []string{"fix the SECRET bug", "THE ANSWER", "TOOL OUTPUT", "cat ~/.ssh/id"} {
		if !strings.Contains(all.String(), want) {
			t.Fatalf("%q not exported with log_content", want)
		}
	}
}

func TestMetricsOfATurn(t *testing.T) {
	price := func(model string, u chat.Usage) (float64, bool) { return float64(u.InputTokens) / 1000, model == "m1" }
	h := newHarness(t, SinkOptions{Price: price})
	for _, e := range turnEvents() {
		h.sink.Emit(e)
	}
	var rm metricdata.ResourceMetrics
	if err := h.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					got[m.Name+key(p.Attributes)] += float64(p.Value)
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					got[m.Name+key(p.Attributes)] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					got[m.Name+key(p.Attributes)] += float64(p.Count)
				}
			}
		}
	}
	want := map[string]float64{
		MetricSessions + "{resumed=false}":                    1,
		MetricTurns + "{state=completed}":                     1,
		MetricTokens + "{model=m1,type=input}":                210,
		MetricTokens + "{model=m1,type=output}":               41,
		MetricTokens + "{model=m1,type=cache_read}":           100,
		MetricCost + "{model=m1}":                             0.21,
		MetricModelLatency + "{model=m1}":                     3,
		MetricToolCalls + "{outcome=failed,tool.name=bash}":   1,
		MetricToolCalls + "{outcome=refused,tool.name=write}": 1,
		MetricToolCalls + "{outcome=ok,tool.name=task}":       1,
		MetricToolDuration + "{tool.name=bash}":               1,
		MetricToolDuration + "{tool.name=task}":               1,
		MetricSandboxRefusals + "{tool.name=bash}":            1,
	}
	for k, v := range want {
		if g := got[k]; g < v-1e-9 || g > v+1e-9 {
			t.Errorf("%s = %v, want %v", k, g, v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("metrics: %v", got)
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

func attr(s sdktrace.ReadOnlySpan, k string) string {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == k {
			return kv.Value.String()
		}
	}
	return ""
}

func key(set attribute.Set) string {
	var parts []string
	for _, kv := range set.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.String())
	}
	return "{" + strings.Join(parts, ",") + "}"
}
