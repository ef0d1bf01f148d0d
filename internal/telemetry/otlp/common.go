package otlp

import (
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
)

// The messages of opentelemetry/proto/common/v1 and resource/v1.

// keyValues writes a repeated KeyValue field (key = 1, value = 2).
func keyValues(w writer, num int, name string, kvs []attribute.KeyValue) {
	w.messages(num, name, len(kvs), func(i int) {
		w.str(1, "key", string(kvs[i].Key))
		w.message(2, "value", func() { anyValue(w, kvs[i].Value) })
	})
}

// anyValue writes AnyValue's oneof: string_value = 1, bool_value = 2,
// int_value = 3, double_value = 4, array_value = 5, kvlist_value = 6,
// bytes_value = 7. An empty value sets none of them.
func anyValue(w writer, v attribute.Value) {
	switch v.Type() {
	case attribute.STRING:
		w.str(1, "stringValue", v.AsString())
	case attribute.BOOL:
		w.boolean(2, "boolValue", v.AsBool())
	case attribute.INT64:
		w.int64(3, "intValue", v.AsInt64())
	case attribute.FLOAT64:
		w.double(4, "doubleValue", v.AsFloat64())
	case attribute.BYTESLICE:
		w.bytes(7, "bytesValue", v.AsByteSlice())
	case attribute.MAP:
		w.message(6, "kvlistValue", func() { keyValues(w, 1, "values", v.AsMap()) })
	case attribute.SLICE:
		arrayValue(w, v.AsSlice(), func(x attribute.Value) { anyValue(w, x) })
	case attribute.BOOLSLICE:
		arrayValue(w, v.AsBoolSlice(), func(x bool) { w.boolean(2, "boolValue", x) })
	case attribute.INT64SLICE:
		arrayValue(w, v.AsInt64Slice(), func(x int64) { w.int64(3, "intValue", x) })
	case attribute.FLOAT64SLICE:
		arrayValue(w, v.AsFloat64Slice(), func(x float64) { w.double(4, "doubleValue", x) })
	case attribute.STRINGSLICE:
		arrayValue(w, v.AsStringSlice(), func(x string) { w.str(1, "stringValue", x) })
	}
}

// arrayValue writes AnyValue.array_value: an ArrayValue whose values
// (= 1) are AnyValues.
func arrayValue[T any](w writer, vs []T, elem func(T)) {
	w.message(5, "arrayValue", func() {
		w.messages(1, "values", len(vs), func(i int) { elem(vs[i]) })
	})
}

// resourceField writes a Resource (attributes = 1).
func resourceField(w writer, num int, res *resource.Resource) {
	w.message(num, "resource", func() { keyValues(w, 1, "attributes", res.Attributes()) })
}

// scopeField writes an InstrumentationScope (name = 1, version = 2,
// attributes = 3).
func scopeField(w writer, num int, s instrumentation.Scope) {
	w.message(num, "scope", func() {
		optStr(w, 1, "name", s.Name)
		optStr(w, 2, "version", s.Version)
		keyValues(w, 3, "attributes", s.Attributes.ToSlice())
	})
}

// optStr and optCount leave out a plain field's zero value, as proto3
// does.
func optStr(w writer, num int, name, v string) {
	if v != "" {
		w.str(num, name, v)
	}
}

func optCount(w writer, num int, name string, n int) {
	if n > 0 {
		w.uint32(num, name, uint32(min(uint64(n), math.MaxUint32)))
	}
}

// unixNano is a fixed64 time: nanoseconds since the epoch, 0 for unset.
func unixNano(t time.Time) uint64 {
	if t.IsZero() || t.UnixNano() < 0 {
		return 0
	}
	return uint64(t.UnixNano())
}
