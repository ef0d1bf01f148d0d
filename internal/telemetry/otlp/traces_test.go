package otlp

import (
	"math"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/coder-agent/coder/internal/telemetry/otlp/otlptest"
)

// encodings are the two OTLP/HTTP bodies; every encoding test runs both
// and decodes with the official generated types.
var encodings = []struct {
	name string
	json bool
}{{"protobuf", false}, {"json", true}}

func sv(s string) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
}
func bv(b bool) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: b}}
}
func iv(i int64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: i}}
}
func dv(f float64) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: f}}
}
func av(vs ...*commonpb.AnyValue) *commonpb.AnyValue {
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: vs}}}
}
func kv(k string, v *commonpb.AnyValue) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: v}
}

// attributeKinds is every kind of attribute value, with what OTLP must
// carry for it.
var attributeKinds = []struct {
	in   attribute.KeyValue
	want *commonpb.AnyValue
}{
	{attribute.String("s", "quote \" backslash \\ nl \n tab \t ctl \x01 del \x7f ünï ☃ 😀 </script>"),
		sv("quote \" backslash \\ nl \n tab \t ctl \x01 del \x7f ünï ☃ 😀 </script>")},
	{attribute.String("not utf-8", "a\xffb"), sv("a\uFFFDb")},
	{attribute.String("empty", ""), sv("")},
	{attribute.Bool("true", true), bv(true)},
	{attribute.Bool("false", false), bv(false)},
	{attribute.Int64("zero", 0), iv(0)},
	{attribute.Int64("negative", -42), iv(-42)},
	{attribute.Int64("max", math.MaxInt64), iv(math.MaxInt64)},
	{attribute.Int64("min", math.MinInt64), iv(math.MinInt64)},
	{attribute.Float64("float", -3.25e-7), dv(-3.25e-7)},
	{attribute.Float64("float zero", 0), dv(0)},
	{attribute.Float64("big", 1e300), dv(1e300)},
	{attribute.Float64("inf", math.Inf(1)), dv(math.Inf(1))},
	{attribute.Float64("-inf", math.Inf(-1)), dv(math.Inf(-1))},
	{attribute.BoolSlice("bools", []bool{true, false}), av(bv(true), bv(false))},
	{attribute.Int64Slice("ints", []int64{1, -2, 0}), av(iv(1), iv(-2), iv(0))},
	{attribute.Float64Slice("floats", []float64{0.5, 0}), av(dv(0.5), dv(0))},
	{attribute.StringSlice("strings", []string{"a", ""}), av(sv("a"), sv(""))},
	{attribute.StringSlice("no strings", nil), av()},
	{attribute.ByteSlice("bytes", []byte{0, 1, 0xff}), &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: []byte{0, 1, 0xff}}}},
	{attribute.Slice("mixed", attribute.StringValue("x"), attribute.Int64Value(7), attribute.SliceValue(attribute.BoolValue(true))),
		av(sv("x"), iv(7), av(bv(true)))},
	{attribute.Map("map", attribute.String("k", "v"), attribute.Float64("f", 1.5)),
		&commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{
			Values: []*commonpb.KeyValue{kv("f", dv(1.5)), kv("k", sv("v"))}}}}},
	{attribute.KeyValue{Key: "empty value"}, &commonpb.AnyValue{}},
}

var (
	traceID  = trace.TraceID{0x5b, 0x8e, 0xff, 0xf7, 0x98, 0x03, 0x81, 0x03, 0xd2, 0x69, 0xb6, 0x33, 0x81, 0x3f, 0xc6, 0x0c}
	rootID   = trace.SpanID{0xee, 0xe1, 0x9b, 0x7e, 0xc3, 0xc1, 0xb1, 0x74}
	childID  = trace.SpanID{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08}
	remoteID = trace.SpanID{0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7}
	t0       = time.Unix(1_700_000_000, 1)
)

func spanContext(sid trace.SpanID, remote bool) trace.SpanContext {
	ts, _ := trace.ParseTraceState("vendor=value")
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: sid,
		TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: remote})
}

func TestAttributeValueKinds(t *testing.T) {
	var attrs []attribute.KeyValue
	for _, k := range attributeKinds {
		attrs = append(attrs, k.in)
	}
	attrs = append(attrs, attribute.Float64("nan", math.NaN()))
	spans := tracetest.SpanStubs{{Name: "s", SpanContext: spanContext(rootID, false), Attributes: attrs}}.Snapshots()
	for _, enc := range encodings {
		t.Run(enc.name, func(t *testing.T) {
			req, err := otlptest.DecodeTraces(enc.json, encodeTraces(enc.json, spans))
			if err != nil {
				t.Fatal(err)
			}
			got := req.ResourceSpans[0].ScopeSpans[0].Spans[0].Attributes
			if len(got) != len(attributeKinds)+1 {
				t.Fatalf("%d attributes, want %d", len(got), len(attributeKinds)+1)
			}
			for i, k := range attributeKinds {
				if got[i].Key != string(k.in.Key) || !proto.Equal(got[i].Value, k.want) {
					t.Errorf("%s: got %v = %v, want %v", k.in.Key, got[i].Key, got[i].Value, k.want)
				}
			}
			if nan := got[len(got)-1]; !math.IsNaN(nan.Value.GetDoubleValue()) {
				t.Errorf("NaN came as %v", nan.Value)
			}
		})
	}
}

// TestSpanFields: every field of a span, its events, links and status,
// and the grouping by resource and scope, decode to what the SDK held.
func TestSpanFields(t *testing.T) {
	res := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "coder"))
	other := resource.NewSchemaless(attribute.String("service.name", "other"))
	scope := instrumentation.Scope{Name: "coder", Version: "1.2", SchemaURL: "https://scope/schema",
		Attributes: attribute.NewSet(attribute.Bool("scoped", true))}
	stubs := tracetest.SpanStubs{
		{Name: "coder.turn", SpanContext: spanContext(rootID, false), SpanKind: trace.SpanKindServer,
			StartTime: t0, EndTime: t0.Add(time.Second), Resource: res, InstrumentationScope: scope,
			Attributes: []attribute.KeyValue{attribute.Int("n", 1)}, DroppedAttributes: 3,
			Status: sdktrace.Status{Code: codes.Error, Description: "it failed"},
			Events: []sdktrace.Event{{Name: "retry", Time: t0.Add(time.Millisecond),
				Attributes: []attribute.KeyValue{attribute.String("why", "429")}, DroppedAttributeCount: 1}},
			DroppedEvents: 2},
		{Name: "read", SpanContext: spanContext(childID, false), Parent: spanContext(remoteID, true),
			SpanKind: trace.SpanKindClient, StartTime: t0, EndTime: t0, Resource: res, InstrumentationScope: scope,
			Status:       sdktrace.Status{Code: codes.Ok},
			Links:        []sdktrace.Link{{SpanContext: spanContext(rootID, true), Attributes: []attribute.KeyValue{attribute.Bool("l", true)}, DroppedAttributeCount: 4}},
			DroppedLinks: 5},
		{Name: "elsewhere", SpanContext: spanContext(rootID, false), Resource: other,
			InstrumentationScope: instrumentation.Scope{Name: "x"}},
	}
	want := &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{
		{Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", sv("coder"))}},
			SchemaUrl: "https://opentelemetry.io/schemas/1.26.0",
			ScopeSpans: []*tracepb.ScopeSpans{{
				Scope: &commonpb.InstrumentationScope{Name: "coder", Version: "1.2",
					Attributes: []*commonpb.KeyValue{kv("scoped", bv(true))}},
				SchemaUrl: "https://scope/schema",
				Spans: []*tracepb.Span{
					{TraceId: traceID[:], SpanId: rootID[:], TraceState: "vendor=value", Flags: 0x101,
						Name: "coder.turn", Kind: tracepb.Span_SPAN_KIND_SERVER,
						StartTimeUnixNano: 1_700_000_000_000_000_001, EndTimeUnixNano: 1_700_000_001_000_000_001,
						Attributes: []*commonpb.KeyValue{kv("n", iv(1))}, DroppedAttributesCount: 3,
						Events: []*tracepb.Span_Event{{TimeUnixNano: 1_700_000_000_001_000_001, Name: "retry",
							Attributes: []*commonpb.KeyValue{kv("why", sv("429"))}, DroppedAttributesCount: 1}},
						DroppedEventsCount: 2,
						Status:             &tracepb.Status{Message: "it failed", Code: tracepb.Status_STATUS_CODE_ERROR}},
					{TraceId: traceID[:], SpanId: childID[:], TraceState: "vendor=value", ParentSpanId: remoteID[:],
						Flags: 0x301, Name: "read", Kind: tracepb.Span_SPAN_KIND_CLIENT,
						StartTimeUnixNano: 1_700_000_000_000_000_001, EndTimeUnixNano: 1_700_000_000_000_000_001,
						Links: []*tracepb.Span_Link{{TraceId: traceID[:], SpanId: rootID[:], TraceState: "vendor=value",
							Attributes: []*commonpb.KeyValue{kv("l", bv(true))}, DroppedAttributesCount: 4, Flags: 0x301}},
						DroppedLinksCount: 5,
						Status:            &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK}},
				}}}},
		{Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{kv("service.name", sv("other"))}},
			ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: "x"},
				Spans: []*tracepb.Span{{TraceId: traceID[:], SpanId: rootID[:], TraceState: "vendor=value",
					Flags: 0x101, Name: "elsewhere"}}}}},
	}}
	for _, enc := range encodings {
		t.Run(enc.name, func(t *testing.T) {
			got, err := otlptest.DecodeTraces(enc.json, encodeTraces(enc.json, stubs.Snapshots()))
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, want) {
				t.Fatalf("got\n%s\nwant\n%s", protojson.Format(got), protojson.Format(want))
			}
		})
	}
}

// TestJSONForm: what OTLP/JSON changes from protobuf's JSON mapping, and
// what the mapping itself asks, in the bytes sent.
func TestJSONForm(t *testing.T) {
	spans := tracetest.SpanStubs{{Name: "s", SpanContext: spanContext(childID, false), Parent: spanContext(rootID, false),
		SpanKind: trace.SpanKindServer, StartTime: t0, Status: sdktrace.Status{Code: codes.Error},
		Attributes: []attribute.KeyValue{attribute.Int64("n", -42)}}}.Snapshots()
	body := string(encodeTraces(true, spans))
	for _, want := range []string{
		`"traceId":"5b8efff798038103d269b633813fc60c"`, // ids in hex, not base64
		`"parentSpanId":"eee19b7ec3c1b174"`,
		`"startTimeUnixNano":"1700000000000000001"`, // 64-bit integers as strings
		`"intValue":"-42"`,
		`"kind":2`, // enums as numbers
		`"status":{"code":2}`,
		`"resourceSpans":[{`, // lowerCamelCase keys
	} {
		if !strings.Contains(body, want) {
			t.Errorf("%s not in %s", want, body)
		}
	}
}
