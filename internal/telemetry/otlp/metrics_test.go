package otlp

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/coder-agent/coder/internal/telemetry/otlp/otlptest"
)

func ptr(f float64) *float64 { return &f }

// TestMetricKinds: every kind of metric data the SDK makes — gauges,
// sums and histograms of int64 and float64, exponential histograms,
// summaries — with exemplars, extrema and both temporalities, decodes to
// what the SDK held.
func TestMetricKinds(t *testing.T) {
	t1 := t0.Add(time.Minute)
	a := attribute.NewSet(attribute.String("model", "m1"))
	ex := metricdata.Exemplar[float64]{FilteredAttributes: []attribute.KeyValue{attribute.Bool("f", true)},
		Time: t1, Value: 2.5, SpanID: rootID[:], TraceID: traceID[:]}
	rm := &metricdata.ResourceMetrics{
		Resource: resource.NewSchemaless(attribute.String("service.name", "coder")),
		ScopeMetrics: []metricdata.ScopeMetrics{{
			Scope: instrumentation.Scope{Name: "coder", Version: "v1"},
			Metrics: []metricdata.Metrics{
				{Name: "tokens", Description: "Tokens used", Unit: "{token}", Data: metricdata.Sum[int64]{
					Temporality: metricdata.CumulativeTemporality, IsMonotonic: true,
					DataPoints: []metricdata.DataPoint[int64]{{Attributes: a, StartTime: t0, Time: t1, Value: 0},
						{StartTime: t0, Time: t1, Value: -7,
							Exemplars: []metricdata.Exemplar[int64]{{Time: t1, Value: 3}}}}}},
				{Name: "cost", Unit: "USD", Data: metricdata.Sum[float64]{Temporality: metricdata.DeltaTemporality,
					DataPoints: []metricdata.DataPoint[float64]{{Attributes: a, StartTime: t0, Time: t1, Value: 0.25,
						Exemplars: []metricdata.Exemplar[float64]{ex}}}}},
				{Name: "queue", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Time: t1, Value: 12}}}},
				{Name: "load", Data: metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{{Time: t1, Value: 0}}}},
				{Name: "latency", Unit: "s", Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality,
					DataPoints: []metricdata.HistogramDataPoint[float64]{{Attributes: a, StartTime: t0, Time: t1,
						Count: 3, Sum: 4.5, Bounds: []float64{0, 1, 2.5}, BucketCounts: []uint64{0, 1, 1, 1},
						Min: metricdata.NewExtrema(0.5), Max: metricdata.NewExtrema(3.0), Exemplars: []metricdata.Exemplar[float64]{ex}}}}},
				{Name: "sizes", Data: metricdata.Histogram[int64]{Temporality: metricdata.DeltaTemporality,
					DataPoints: []metricdata.HistogramDataPoint[int64]{{StartTime: t0, Time: t1, Count: 0, Sum: 0,
						Bounds: []float64{10}, BucketCounts: []uint64{0, 0}}}}},
				{Name: "exp", Data: metricdata.ExponentialHistogram[float64]{Temporality: metricdata.DeltaTemporality,
					DataPoints: []metricdata.ExponentialHistogramDataPoint[float64]{{Attributes: a, StartTime: t0, Time: t1,
						Count: 6, Sum: -1.5, Scale: -3, ZeroCount: 1, ZeroThreshold: 1e-9,
						PositiveBucket: metricdata.ExponentialBucket{Offset: -2, Counts: []uint64{1, 0, 300}},
						NegativeBucket: metricdata.ExponentialBucket{Offset: 5, Counts: []uint64{2}},
						Min:            metricdata.NewExtrema(-4.0), Max: metricdata.NewExtrema(0.0)}}}},
				{Name: "quantiles", Data: metricdata.Summary{DataPoints: []metricdata.SummaryDataPoint{{
					Attributes: a, StartTime: t0, Time: t1, Count: 2, Sum: 3,
					QuantileValues: []metricdata.QuantileValue{{Quantile: 0, Value: 1}, {Quantile: 1, Value: 2}}}}}},
			}}},
	}
	model := []*commonpb.KeyValue{kv("model", sv("m1"))}
	const start, end = 1_700_000_000_000_000_001, 1_700_000_060_000_000_001
	pex := &metricpb.Exemplar{FilteredAttributes: []*commonpb.KeyValue{kv("f", bv(true))}, TimeUnixNano: end,
		Value: &metricpb.Exemplar_AsDouble{AsDouble: 2.5}, SpanId: rootID[:], TraceId: traceID[:]}
	cumulative, delta := metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE, metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
	want := &metricpb.MetricsData{ResourceMetrics: []*metricpb.ResourceMetrics{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", sv("coder"))}},
		ScopeMetrics: []*metricpb.ScopeMetrics{{
			Scope: &commonpb.InstrumentationScope{Name: "coder", Version: "v1"},
			Metrics: []*metricpb.Metric{
				{Name: "tokens", Description: "Tokens used", Unit: "{token}", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{
					AggregationTemporality: cumulative, IsMonotonic: true,
					DataPoints: []*metricpb.NumberDataPoint{
						{Attributes: model, StartTimeUnixNano: start, TimeUnixNano: end, Value: &metricpb.NumberDataPoint_AsInt{AsInt: 0}},
						{StartTimeUnixNano: start, TimeUnixNano: end, Value: &metricpb.NumberDataPoint_AsInt{AsInt: -7},
							Exemplars: []*metricpb.Exemplar{{TimeUnixNano: end, Value: &metricpb.Exemplar_AsInt{AsInt: 3}}}}}}}},
				{Name: "cost", Unit: "USD", Data: &metricpb.Metric_Sum{Sum: &metricpb.Sum{AggregationTemporality: delta,
					DataPoints: []*metricpb.NumberDataPoint{{Attributes: model, StartTimeUnixNano: start, TimeUnixNano: end,
						Value: &metricpb.NumberDataPoint_AsDouble{AsDouble: 0.25}, Exemplars: []*metricpb.Exemplar{pex}}}}}},
				{Name: "queue", Data: &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: []*metricpb.NumberDataPoint{
					{TimeUnixNano: end, Value: &metricpb.NumberDataPoint_AsInt{AsInt: 12}}}}}},
				{Name: "load", Data: &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: []*metricpb.NumberDataPoint{
					{TimeUnixNano: end, Value: &metricpb.NumberDataPoint_AsDouble{AsDouble: 0}}}}}},
				{Name: "latency", Unit: "s", Data: &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{
					AggregationTemporality: cumulative,
					DataPoints: []*metricpb.HistogramDataPoint{{Attributes: model, StartTimeUnixNano: start, TimeUnixNano: end,
						Count: 3, Sum: ptr(4.5), ExplicitBounds: []float64{0, 1, 2.5}, BucketCounts: []uint64{0, 1, 1, 1},
						Min: ptr(0.5), Max: ptr(3), Exemplars: []*metricpb.Exemplar{pex}}}}}},
				{Name: "sizes", Data: &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{AggregationTemporality: delta,
					DataPoints: []*metricpb.HistogramDataPoint{{StartTimeUnixNano: start, TimeUnixNano: end,
						Sum: ptr(0), ExplicitBounds: []float64{10}, BucketCounts: []uint64{0, 0}}}}}},
				{Name: "exp", Data: &metricpb.Metric_ExponentialHistogram{ExponentialHistogram: &metricpb.ExponentialHistogram{
					AggregationTemporality: delta,
					DataPoints: []*metricpb.ExponentialHistogramDataPoint{{Attributes: model, StartTimeUnixNano: start, TimeUnixNano: end,
						Count: 6, Sum: ptr(-1.5), Scale: -3, ZeroCount: 1, ZeroThreshold: 1e-9,
						Positive: &metricpb.ExponentialHistogramDataPoint_Buckets{Offset: -2, BucketCounts: []uint64{1, 0, 300}},
						Negative: &metricpb.ExponentialHistogramDataPoint_Buckets{Offset: 5, BucketCounts: []uint64{2}},
						Min:      ptr(-4), Max: ptr(0)}}}}},
				{Name: "quantiles", Data: &metricpb.Metric_Summary{Summary: &metricpb.Summary{DataPoints: []*metricpb.SummaryDataPoint{{
					Attributes: model, StartTimeUnixNano: start, TimeUnixNano: end, Count: 2, Sum: 3,
					QuantileValues: []*metricpb.SummaryDataPoint_ValueAtQuantile{{Quantile: 0, Value: 1}, {Quantile: 1, Value: 2}}}}}}},
			}}}}}}
	for _, enc := range encodings {
		t.Run(enc.name, func(t *testing.T) {
			body, err := encodeMetrics(enc.json, rm)
			if err != nil {
				t.Fatal(err)
			}
			got, err := otlptest.DecodeMetrics(enc.json, body)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, want) {
				t.Fatalf("got\n%s\nwant\n%s", protojson.Format(got), protojson.Format(want))
			}
		})
	}
}

// TestNoEmptyEnvelopes: a collection without data points sends nothing
// (the specification: senders should not send empty envelopes).
func TestNoEmptyEnvelopes(t *testing.T) {
	body, err := encodeMetrics(false, &metricdata.ResourceMetrics{ScopeMetrics: []metricdata.ScopeMetrics{{}}})
	if body != nil || err != nil {
		t.Fatalf("body %q, err %v", body, err)
	}
}
