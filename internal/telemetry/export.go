// Package telemetry exports what coder does as OpenTelemetry metrics and
// traces over OTLP/HTTP, for teams that watch many sessions in the
// backends they already run. It is opt-in (telemetry.enabled, or
// CODER_ENABLE_TELEMETRY=1) and configured by the standard OTEL_*
// variables (endpoint, headers, timeout, resource attributes, export
// interval). Nothing here runs, and no exporter is built, unless it is on.
//
// It is a consumer of the core's events (event.Sink): the orchestrator
// knows nothing of spans. Prompts, answers, tool arguments and output are
// exported only with telemetry.log_content; otherwise the data are names,
// counts, durations and outcomes.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Pipeline is the process's export: a tracer and a meter provider feeding
// OTLP/HTTP exporters, shared by every session of the process.
type Pipeline struct {
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
	tracer trace.Tracer
	inst   instruments
	// Warnings say what of the OTEL_* configuration coder does not follow.
	Warnings []string

	mu       sync.Mutex
	failures int
	lastErr  error
}

// Start builds the pipeline from the OTEL_* variables (env reads them:
// os.LookupEnv in the program). version is coder's, the service version.
// With OTEL_SDK_DISABLED=true, or both signals' exporters "none", it
// returns nil and no error: nothing is to be sent.
func Start(ctx context.Context, version string, env func(string) (string, bool)) (*Pipeline, error) {
	get := func(k string) string { v, _ := env(k); return strings.TrimSpace(v) }
	if strings.EqualFold(get("OTEL_SDK_DISABLED"), "true") {
		return nil, nil
	}
	p := &Pipeline{}
	if proto := get("OTEL_EXPORTER_OTLP_PROTOCOL"); proto != "" && proto != "http/protobuf" {
		p.Warnings = append(p.Warnings, fmt.Sprintf("telemetry: OTEL_EXPORTER_OTLP_PROTOCOL=%s: coder exports OTLP over HTTP (http/protobuf) only", proto))
	}
	traces, tw := exporterWanted(get("OTEL_TRACES_EXPORTER"), "OTEL_TRACES_EXPORTER")
	metrics, mw := exporterWanted(get("OTEL_METRICS_EXPORTER"), "OTEL_METRICS_EXPORTER")
	p.Warnings = append(p.Warnings, tw, mw)
	if !traces && !metrics {
		return nil, nil
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "coder"), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv()) // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
	if err != nil && res == nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	// Export failures go to the report at the end, never to a terminal in
	// the middle of a session.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(p.failed))
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if traces {
		te, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("telemetry trace exporter: %w", err)
		}
		topts = append(topts, sdktrace.WithBatcher(te))
	}
	tp := sdktrace.NewTracerProvider(topts...)
	mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	if metrics {
		me, err := otlpmetrichttp.New(ctx)
		if err != nil {
			_ = tp.Shutdown(ctx)
			return nil, fmt.Errorf("telemetry metric exporter: %w", err)
		}
		// OTEL_METRIC_EXPORT_INTERVAL and _TIMEOUT are read by the reader.
		mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(me)))
	}
	mp := sdkmetric.NewMeterProvider(mopts...)
	p.tp, p.mp = tp, mp
	p.tracer = tp.Tracer("github.com/coder-agent/coder")
	p.inst, err = newInstruments(mp.Meter("github.com/coder-agent/coder"))
	if err != nil {
		_ = p.Shutdown(ctx)
		return nil, err
	}
	return p, nil
}

// exporterWanted reads OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER: unset
// or "otlp" exports, "none" does not; other exporters are not built in.
func exporterWanted(v, name string) (bool, string) {
	switch strings.ToLower(v) {
	case "", "otlp":
		return true, ""
	case "none":
		return false, ""
	}
	return true, fmt.Sprintf("telemetry: %s=%s: coder exports OTLP only; using otlp", name, v)
}

func (p *Pipeline) failed(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failures++
	p.lastErr = err
}

// Shutdown sends what is buffered (the last spans, a final metric export)
// within ctx's time and stops the exporters. Its error says whether
// anything failed to export during the run.
func (p *Pipeline) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	errs := []error{p.tp.Shutdown(ctx), p.mp.Shutdown(ctx)}
	p.mu.Lock()
	if p.failures > 0 {
		errs = append(errs, fmt.Errorf("%d export error(s), the last: %w", p.failures, p.lastErr))
	}
	p.mu.Unlock()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	return nil
}

// ShutdownTimeout bounds the final export at exit: an unreachable
// collector must not hold the program.
const ShutdownTimeout = 5 * time.Second

// instruments are the metrics. Names follow Claude Code's telemetry
// (claude_code.token.usage → coder.token.usage), so dashboards carry over.
type instruments struct {
	sessions  metric.Int64Counter
	turns     metric.Int64Counter
	tokens    metric.Int64Counter
	cost      metric.Float64Counter
	latency   metric.Float64Histogram
	toolCalls metric.Int64Counter
	toolTime  metric.Float64Histogram
	refusals  metric.Int64Counter
}

// Metric names.
const (
	MetricSessions        = "coder.session.count"
	MetricTurns           = "coder.turn.count"
	MetricTokens          = "coder.token.usage"
	MetricCost            = "coder.cost.usage"
	MetricModelLatency    = "coder.model.latency"
	MetricToolCalls       = "coder.tool.calls"
	MetricToolDuration    = "coder.tool.duration"
	MetricSandboxRefusals = "coder.sandbox.refusals"
)

func newInstruments(m metric.Meter) (instruments, error) {
	var in instruments
	var errs [8]error
	in.sessions, errs[0] = m.Int64Counter(MetricSessions, metric.WithDescription("Sessions started or resumed"))
	in.turns, errs[1] = m.Int64Counter(MetricTurns, metric.WithDescription("Turns, by how they ended"))
	in.tokens, errs[2] = m.Int64Counter(MetricTokens, metric.WithUnit("{token}"),
		metric.WithDescription("Tokens used, by type (input, output, cache_read, cache_creation) and model"))
	in.cost, errs[3] = m.Float64Counter(MetricCost, metric.WithUnit("USD"),
		metric.WithDescription("Cost of the model calls at the catalog's prices, by model"))
	in.latency, errs[4] = m.Float64Histogram(MetricModelLatency, metric.WithUnit("s"),
		metric.WithDescription("Time from a model call's start to its committed message, by model"))
	in.toolCalls, errs[5] = m.Int64Counter(MetricToolCalls,
		metric.WithDescription("Tool calls, by tool and outcome (ok, failed, refused)"))
	in.toolTime, errs[6] = m.Float64Histogram(MetricToolDuration, metric.WithUnit("s"),
		metric.WithDescription("Tool call durations, by tool"))
	in.refusals, errs[7] = m.Int64Counter(MetricSandboxRefusals,
		metric.WithDescription("Commands the OS sandbox refused, by tool"))
	return in, errors.Join(errs[:]...)
}
