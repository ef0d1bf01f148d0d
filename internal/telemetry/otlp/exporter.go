package otlp

import (
	"context"
	"errors"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// TraceExporter is an sdktrace.SpanExporter sending OTLP/HTTP.
type TraceExporter struct{ c *client }

var _ sdktrace.SpanExporter = (*TraceExporter)(nil)

// NewTraceExporter sends spans as cfg says. It starts nothing: the
// connection is made by the first export.
func NewTraceExporter(cfg Config) *TraceExporter {
	return &TraceExporter{c: newClient(cfg, "spans")}
}

// ExportSpans sends one batch (the SDK's batch processor calls it, off
// the program's path).
func (e *TraceExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	return e.c.post(ctx, encodeTraces(e.c.cfg.JSON, spans))
}

// Drain is called as the program exits, before the SDK's final export:
// from then on no export waits to retry, and each is bounded by ctx.
func (e *TraceExporter) Drain(ctx context.Context) { e.c.drain(ctx) }

// Shutdown implements sdktrace.SpanExporter.
func (e *TraceExporter) Shutdown(ctx context.Context) error {
	e.c.drain(ctx)
	e.c.http.CloseIdleConnections()
	return nil
}

// MetricExporter is an sdkmetric.Exporter sending OTLP/HTTP.
type MetricExporter struct{ c *client }

var _ sdkmetric.Exporter = (*MetricExporter)(nil)

// NewMetricExporter sends metrics as cfg says.
func NewMetricExporter(cfg Config) *MetricExporter {
	return &MetricExporter{c: newClient(cfg, "data points")}
}

// Temporality follows the configured preference: delta makes counters
// (synchronous or not) and histograms delta; lowmemory only the
// synchronous ones; everything else is cumulative.
func (e *MetricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	switch e.c.cfg.Temporality {
	case "delta":
		if k == sdkmetric.InstrumentKindCounter || k == sdkmetric.InstrumentKindObservableCounter || k == sdkmetric.InstrumentKindHistogram {
			return metricdata.DeltaTemporality
		}
	case "lowmemory":
		if k == sdkmetric.InstrumentKindCounter || k == sdkmetric.InstrumentKindHistogram {
			return metricdata.DeltaTemporality
		}
	}
	return metricdata.CumulativeTemporality
}

// Aggregation is the SDK's default, histograms exponential if asked.
func (e *MetricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	if k == sdkmetric.InstrumentKindHistogram && e.c.cfg.Exponential {
		return sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: 160, MaxScale: 20}
	}
	return sdkmetric.DefaultAggregationSelector(k)
}

// Export sends one collection.
func (e *MetricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	body, err := encodeMetrics(e.c.cfg.JSON, rm)
	if body != nil {
		err = errors.Join(err, e.c.post(ctx, body))
	}
	return err
}

// ForceFlush implements sdkmetric.Exporter: nothing is held here.
func (e *MetricExporter) ForceFlush(ctx context.Context) error { return ctx.Err() }

// Drain is TraceExporter.Drain's twin.
func (e *MetricExporter) Drain(ctx context.Context) { e.c.drain(ctx) }

// Shutdown implements sdkmetric.Exporter.
func (e *MetricExporter) Shutdown(ctx context.Context) error {
	e.c.drain(ctx)
	e.c.http.CloseIdleConnections()
	return nil
}
