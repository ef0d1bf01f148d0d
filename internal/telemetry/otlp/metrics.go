package otlp

import (
	"fmt"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The messages of opentelemetry/proto/collector/metrics/v1 and
// metrics/v1.

// encodeMetrics is an ExportMetricsServiceRequest (resource_metrics = 1)
// holding one ResourceMetrics: resource = 1, scope_metrics = 2,
// schema_url = 3. A metric whose data the encoder does not know is left
// out and named in the error; the rest is encoded.
func encodeMetrics(json bool, rm *metricdata.ResourceMetrics) ([]byte, error) {
	scopes := make([]metricdata.ScopeMetrics, 0, len(rm.ScopeMetrics))
	var errs []string
	for _, sm := range rm.ScopeMetrics {
		known := make([]metricdata.Metrics, 0, len(sm.Metrics))
		for _, m := range sm.Metrics {
			if knownData(m.Data) {
				known = append(known, m)
			} else {
				errs = append(errs, fmt.Sprintf("%s (%T)", m.Name, m.Data))
			}
		}
		if len(known) > 0 {
			sm.Metrics = known
			scopes = append(scopes, sm)
		}
	}
	var err error
	if len(errs) > 0 {
		err = fmt.Errorf("metrics of a kind OTLP export does not know, left out: %v", errs)
	}
	if len(scopes) == 0 {
		return nil, err
	}
	return encode(json, func(w writer) {
		w.messages(1, "resourceMetrics", 1, func(int) {
			resourceField(w, 1, rm.Resource)
			w.messages(2, "scopeMetrics", len(scopes), func(i int) {
				// ScopeMetrics: scope = 1, metrics = 2, schema_url = 3.
				sm := scopes[i]
				scopeField(w, 1, sm.Scope)
				w.messages(2, "metrics", len(sm.Metrics), func(j int) { metric(w, sm.Metrics[j]) })
				optStr(w, 3, "schemaUrl", sm.Scope.SchemaURL)
			})
			optStr(w, 3, "schemaUrl", rm.Resource.SchemaURL())
		})
	}), err
}

func knownData(d metricdata.Aggregation) bool {
	switch d.(type) {
	case metricdata.Sum[int64], metricdata.Sum[float64], metricdata.Gauge[int64], metricdata.Gauge[float64],
		metricdata.Histogram[int64], metricdata.Histogram[float64],
		metricdata.ExponentialHistogram[int64], metricdata.ExponentialHistogram[float64], metricdata.Summary:
		return true
	}
	return false
}

// metric writes a Metric: name = 1, description = 2, unit = 3, and its
// data: gauge = 5, sum = 7, histogram = 9, exponential_histogram = 10,
// summary = 11.
func metric(w writer, m metricdata.Metrics) {
	w.str(1, "name", m.Name)
	optStr(w, 2, "description", m.Description)
	optStr(w, 3, "unit", m.Unit)
	switch d := m.Data.(type) {
	case metricdata.Gauge[int64]:
		gauge(w, d)
	case metricdata.Gauge[float64]:
		gauge(w, d)
	case metricdata.Sum[int64]:
		sum(w, d)
	case metricdata.Sum[float64]:
		sum(w, d)
	case metricdata.Histogram[int64]:
		histogram(w, d)
	case metricdata.Histogram[float64]:
		histogram(w, d)
	case metricdata.ExponentialHistogram[int64]:
		expHistogram(w, d)
	case metricdata.ExponentialHistogram[float64]:
		expHistogram(w, d)
	case metricdata.Summary:
		summary(w, d)
	}
}

// temporality is AggregationTemporality (OTLP: 1 delta, 2 cumulative; the
// SDK numbers them the other way round).
func temporality(w writer, t metricdata.Temporality) {
	switch t {
	case metricdata.DeltaTemporality:
		w.uint32(2, "aggregationTemporality", 1)
	case metricdata.CumulativeTemporality:
		w.uint32(2, "aggregationTemporality", 2)
	}
}

// gauge writes Gauge: data_points = 1.
func gauge[N int64 | float64](w writer, g metricdata.Gauge[N]) {
	w.message(5, "gauge", func() {
		w.messages(1, "dataPoints", len(g.DataPoints), func(i int) { numberPoint(w, g.DataPoints[i]) })
	})
}

// sum writes Sum: data_points = 1, aggregation_temporality = 2,
// is_monotonic = 3.
func sum[N int64 | float64](w writer, s metricdata.Sum[N]) {
	w.message(7, "sum", func() {
		w.messages(1, "dataPoints", len(s.DataPoints), func(i int) { numberPoint(w, s.DataPoints[i]) })
		temporality(w, s.Temporality)
		if s.IsMonotonic {
			w.boolean(3, "isMonotonic", true)
		}
	})
}

// numberPoint writes a NumberDataPoint: start_time_unix_nano = 2,
// time_unix_nano = 3, as_double = 4 or as_int = 6, exemplars = 5,
// attributes = 7.
func numberPoint[N int64 | float64](w writer, p metricdata.DataPoint[N]) {
	keyValues(w, 7, "attributes", p.Attributes.ToSlice())
	w.fixed64(2, "startTimeUnixNano", unixNano(p.StartTime))
	w.fixed64(3, "timeUnixNano", unixNano(p.Time))
	number(w, 4, 6, p.Value)
	exemplars(w, 5, p.Exemplars)
}

// number writes a value into the as_double or as_int field of its oneof.
func number[N int64 | float64](w writer, asDouble, asInt int, v N) {
	switch v := any(v).(type) {
	case int64:
		w.sfixed64(asInt, "asInt", v)
	case float64:
		w.double(asDouble, "asDouble", v)
	}
}

// exemplars writes Exemplars: time_unix_nano = 2, as_double = 3 or
// as_int = 6, span_id = 4, trace_id = 5, filtered_attributes = 7.
func exemplars[N int64 | float64](w writer, num int, es []metricdata.Exemplar[N]) {
	w.messages(num, "exemplars", len(es), func(i int) {
		e := es[i]
		keyValues(w, 7, "filteredAttributes", e.FilteredAttributes)
		w.fixed64(2, "timeUnixNano", unixNano(e.Time))
		number(w, 3, 6, e.Value)
		if len(e.SpanID) > 0 {
			w.id(4, "spanId", e.SpanID)
		}
		if len(e.TraceID) > 0 {
			w.id(5, "traceId", e.TraceID)
		}
	})
}

// histogram writes Histogram: data_points = 1, aggregation_temporality = 2;
// a HistogramDataPoint: start/time = 2/3, count = 4, sum = 5,
// bucket_counts = 6, explicit_bounds = 7, exemplars = 8, attributes = 9,
// min = 11, max = 12.
func histogram[N int64 | float64](w writer, h metricdata.Histogram[N]) {
	w.message(9, "histogram", func() {
		w.messages(1, "dataPoints", len(h.DataPoints), func(i int) {
			p := h.DataPoints[i]
			keyValues(w, 9, "attributes", p.Attributes.ToSlice())
			w.fixed64(2, "startTimeUnixNano", unixNano(p.StartTime))
			w.fixed64(3, "timeUnixNano", unixNano(p.Time))
			w.fixed64(4, "count", p.Count)
			w.double(5, "sum", float64(p.Sum))
			w.fixed64s(6, "bucketCounts", p.BucketCounts)
			w.doubles(7, "explicitBounds", p.Bounds)
			exemplars(w, 8, p.Exemplars)
			extrema(w, 11, 12, p.Min, p.Max)
		})
		temporality(w, h.Temporality)
	})
}

func extrema[N int64 | float64](w writer, minNum, maxNum int, lo, hi metricdata.Extrema[N]) {
	if v, ok := lo.Value(); ok {
		w.double(minNum, "min", float64(v))
	}
	if v, ok := hi.Value(); ok {
		w.double(maxNum, "max", float64(v))
	}
}

// expHistogram writes ExponentialHistogram: data_points = 1,
// aggregation_temporality = 2; a data point: attributes = 1,
// start/time = 2/3, count = 4, sum = 5, scale = 6, zero_count = 7,
// positive/negative = 8/9 (Buckets: offset = 1, bucket_counts = 2),
// exemplars = 11, min = 12, max = 13, zero_threshold = 14.
func expHistogram[N int64 | float64](w writer, h metricdata.ExponentialHistogram[N]) {
	buckets := func(num int, name string, b metricdata.ExponentialBucket) {
		w.message(num, name, func() {
			w.sint32(1, "offset", b.Offset)
			w.varints(2, "bucketCounts", b.Counts)
		})
	}
	w.message(10, "exponentialHistogram", func() {
		w.messages(1, "dataPoints", len(h.DataPoints), func(i int) {
			p := h.DataPoints[i]
			keyValues(w, 1, "attributes", p.Attributes.ToSlice())
			w.fixed64(2, "startTimeUnixNano", unixNano(p.StartTime))
			w.fixed64(3, "timeUnixNano", unixNano(p.Time))
			w.fixed64(4, "count", p.Count)
			w.double(5, "sum", float64(p.Sum))
			w.sint32(6, "scale", p.Scale)
			w.fixed64(7, "zeroCount", p.ZeroCount)
			buckets(8, "positive", p.PositiveBucket)
			buckets(9, "negative", p.NegativeBucket)
			exemplars(w, 11, p.Exemplars)
			extrema(w, 12, 13, p.Min, p.Max)
			w.double(14, "zeroThreshold", p.ZeroThreshold)
		})
		temporality(w, h.Temporality)
	})
}

// summary writes Summary: data_points = 1; a SummaryDataPoint:
// start/time = 2/3, count = 4, sum = 5, quantile_values = 6 (quantile = 1,
// value = 2), attributes = 7.
func summary(w writer, s metricdata.Summary) {
	w.message(11, "summary", func() {
		w.messages(1, "dataPoints", len(s.DataPoints), func(i int) {
			p := s.DataPoints[i]
			keyValues(w, 7, "attributes", p.Attributes.ToSlice())
			w.fixed64(2, "startTimeUnixNano", unixNano(p.StartTime))
			w.fixed64(3, "timeUnixNano", unixNano(p.Time))
			w.fixed64(4, "count", p.Count)
			w.double(5, "sum", p.Sum)
			w.messages(6, "quantileValues", len(p.QuantileValues), func(j int) {
				w.double(1, "quantile", p.QuantileValues[j].Quantile)
				w.double(2, "value", p.QuantileValues[j].Value)
			})
		})
	})
}
