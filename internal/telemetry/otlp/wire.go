// Package otlp is coder's OTLP/HTTP exporter for the OpenTelemetry SDK:
// a span exporter and a metric exporter (the SDK's own interfaces) that
// encode what the SDK hands them as OTLP — binary protobuf (the default)
// or JSON — and post it to a collector, with the retries, timeouts and
// OTEL_EXPORTER_OTLP_* configuration the OTLP specification asks of an
// exporter.
//
// It replaces the official otlptracehttp/otlpmetrichttp exporters, which
// link the protobuf runtime, grpc and grpc-gateway into coder (7 MB of
// the stripped binary, 76 more package inits at every start) for a
// feature that is off by default. OTLP's messages are few and fixed, so they are written here
// field by field from the .proto definitions
// (opentelemetry-proto/opentelemetry/proto/…) with nothing but the
// standard library; the tests decode every body with the official
// generated types.
package otlp

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math"
	"slices"
	"strconv"

	"github.com/coder-agent/coder/internal/textcut"
)

// writer writes one OTLP message in one encoding. Each call names the
// field twice, as the .proto does: its number (binary) and its
// lowerCamelCase name (JSON). Every call writes, zero values too: oneof
// and optional fields need their zeros; the encoders leave out the plain
// fields that are empty.
type writer interface {
	str(num int, name, v string)
	bytes(num int, name string, v []byte)
	id(num int, name string, v []byte) // trace and span ids: hex in JSON
	boolean(num int, name string, v bool)
	int64(num int, name string, v int64)   // int64: varint; a string in JSON
	uint32(num int, name string, v uint32) // uint32 and enums: varint; a number in JSON
	sint32(num int, name string, v int32)  // zigzag varint
	fixed32(num int, name string, v uint32)
	fixed64(num int, name string, v uint64) // fixed64, and sfixed64 as its bits; a string in JSON
	sfixed64(num int, name string, v int64)
	double(num int, name string, v float64)
	fixed64s(num int, name string, v []uint64) // packed
	varints(num int, name string, v []uint64)  // packed
	doubles(num int, name string, v []float64) // packed
	message(num int, name string, body func())
	messages(num int, name string, n int, body func(i int)) // repeated; nothing when n is 0
}

// Content types of the two encodings (the OTLP/HTTP specification).
const (
	ContentProtobuf = "application/x-protobuf"
	ContentJSON     = "application/json"
)

// encode writes a request message in protobuf (json false) or JSON.
func encode(json bool, body func(w writer)) []byte {
	if json {
		w := &jsonWriter{buf: []byte{'{'}}
		body(w)
		return append(w.buf, '}')
	}
	w := &protoWriter{}
	body(w)
	return w.buf
}

// protoWriter is the binary protobuf encoding
// (protobuf.dev/programming-guides/encoding).
type protoWriter struct{ buf []byte }

const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func (w *protoWriter) tag(num, wire int) {
	w.buf = binary.AppendUvarint(w.buf, uint64(num)<<3|uint64(wire))
}

func (w *protoWriter) lenPrefixed(num int, v []byte) {
	w.tag(num, wireBytes)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(v)))
	w.buf = append(w.buf, v...)
}

func (w *protoWriter) str(num int, _ string, v string) {
	v = textcut.Valid(v)
	w.tag(num, wireBytes)
	w.buf = binary.AppendUvarint(w.buf, uint64(len(v)))
	w.buf = append(w.buf, v...)
}

func (w *protoWriter) bytes(num int, _ string, v []byte) { w.lenPrefixed(num, v) }
func (w *protoWriter) id(num int, _ string, v []byte)    { w.lenPrefixed(num, v) }

func (w *protoWriter) boolean(num int, _ string, v bool) {
	w.tag(num, wireVarint)
	if v {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
}

func (w *protoWriter) int64(num int, _ string, v int64) {
	w.tag(num, wireVarint)
	w.buf = binary.AppendUvarint(w.buf, uint64(v))
}

func (w *protoWriter) uint32(num int, _ string, v uint32) {
	w.tag(num, wireVarint)
	w.buf = binary.AppendUvarint(w.buf, uint64(v))
}

func (w *protoWriter) sint32(num int, _ string, v int32) {
	w.tag(num, wireVarint)
	w.buf = binary.AppendUvarint(w.buf, uint64(uint32(v<<1)^uint32(v>>31)))
}

func (w *protoWriter) fixed32(num int, _ string, v uint32) {
	w.tag(num, wireFixed32)
	w.buf = binary.LittleEndian.AppendUint32(w.buf, v)
}

func (w *protoWriter) fixed64(num int, _ string, v uint64) {
	w.tag(num, wireFixed64)
	w.buf = binary.LittleEndian.AppendUint64(w.buf, v)
}

func (w *protoWriter) sfixed64(num int, name string, v int64) { w.fixed64(num, name, uint64(v)) }

func (w *protoWriter) double(num int, name string, v float64) {
	w.fixed64(num, name, math.Float64bits(v))
}

func (w *protoWriter) fixed64s(num int, _ string, v []uint64) {
	if len(v) == 0 {
		return
	}
	w.tag(num, wireBytes)
	w.buf = binary.AppendUvarint(w.buf, uint64(8*len(v)))
	for _, x := range v {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, x)
	}
}

func (w *protoWriter) doubles(num int, _ string, v []float64) {
	if len(v) == 0 {
		return
	}
	w.tag(num, wireBytes)
	w.buf = binary.AppendUvarint(w.buf, uint64(8*len(v)))
	for _, x := range v {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(x))
	}
}

func (w *protoWriter) varints(num int, _ string, v []uint64) {
	if len(v) == 0 {
		return
	}
	var body []byte
	for _, x := range v {
		body = binary.AppendUvarint(body, x)
	}
	w.lenPrefixed(num, body)
}

// message writes the body after the tag, then puts its length in front
// of it: a nested message's size is known only once it is written.
func (w *protoWriter) message(num int, _ string, body func()) {
	w.tag(num, wireBytes)
	start := len(w.buf)
	body()
	var n [binary.MaxVarintLen64]byte
	w.buf = slices.Insert(w.buf, start, binary.AppendUvarint(n[:0], uint64(len(w.buf)-start))...)
}

func (w *protoWriter) messages(num int, name string, n int, body func(i int)) {
	for i := range n {
		w.message(num, name, func() { body(i) })
	}
}

// jsonWriter is OTLP's JSON encoding: proto3's JSON mapping with
// lowerCamelCase keys, 64-bit integers as decimal strings and enums as
// numbers, but trace and span ids in hex rather than base64.
type jsonWriter struct {
	buf   []byte
	comma bool // a value was written at this level: the next needs a comma
}

func (w *jsonWriter) key(name string) {
	if w.comma {
		w.buf = append(w.buf, ',')
	}
	w.buf = append(w.buf, '"')
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, '"', ':')
	w.comma = true
}

func (w *jsonWriter) str(_ int, name, v string) {
	w.key(name)
	w.buf = appendJSONString(w.buf, textcut.Valid(v))
}

func (w *jsonWriter) quoted(name string, v []byte) {
	w.key(name)
	w.buf = append(w.buf, '"')
	w.buf = append(w.buf, v...)
	w.buf = append(w.buf, '"')
}

func (w *jsonWriter) bytes(_ int, name string, v []byte) {
	w.quoted(name, base64.StdEncoding.AppendEncode(nil, v))
}

func (w *jsonWriter) id(_ int, name string, v []byte) {
	w.quoted(name, hex.AppendEncode(nil, v))
}

func (w *jsonWriter) boolean(_ int, name string, v bool) {
	w.key(name)
	w.buf = strconv.AppendBool(w.buf, v)
}

func (w *jsonWriter) int64(_ int, name string, v int64) {
	w.quoted(name, strconv.AppendInt(nil, v, 10))
}

func (w *jsonWriter) uint32(_ int, name string, v uint32) {
	w.key(name)
	w.buf = strconv.AppendUint(w.buf, uint64(v), 10)
}

func (w *jsonWriter) sint32(_ int, name string, v int32) {
	w.key(name)
	w.buf = strconv.AppendInt(w.buf, int64(v), 10)
}

func (w *jsonWriter) fixed32(num int, name string, v uint32) { w.uint32(num, name, v) }

func (w *jsonWriter) fixed64(_ int, name string, v uint64) {
	w.quoted(name, strconv.AppendUint(nil, v, 10))
}

func (w *jsonWriter) sfixed64(num int, name string, v int64) { w.int64(num, name, v) }

func (w *jsonWriter) double(_ int, name string, v float64) {
	w.key(name)
	w.buf = appendJSONDouble(w.buf, v)
}

func (w *jsonWriter) array(name string, n int, elem func(i int)) {
	w.key(name)
	w.buf = append(w.buf, '[')
	for i := range n {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		elem(i)
	}
	w.buf = append(w.buf, ']')
}

func (w *jsonWriter) fixed64s(_ int, name string, v []uint64) { w.uints(name, v) }
func (w *jsonWriter) varints(_ int, name string, v []uint64)  { w.uints(name, v) }

func (w *jsonWriter) uints(name string, v []uint64) {
	if len(v) == 0 {
		return
	}
	w.array(name, len(v), func(i int) {
		w.buf = append(w.buf, '"')
		w.buf = strconv.AppendUint(w.buf, v[i], 10)
		w.buf = append(w.buf, '"')
	})
}

func (w *jsonWriter) doubles(_ int, name string, v []float64) {
	if len(v) == 0 {
		return
	}
	w.array(name, len(v), func(i int) { w.buf = appendJSONDouble(w.buf, v[i]) })
}

func (w *jsonWriter) object(body func()) {
	w.buf = append(w.buf, '{')
	w.comma = false
	body()
	w.buf = append(w.buf, '}')
	w.comma = true
}

func (w *jsonWriter) message(_ int, name string, body func()) {
	w.key(name)
	w.object(body)
}

func (w *jsonWriter) messages(_ int, name string, n int, body func(i int)) {
	if n == 0 {
		return
	}
	w.array(name, n, func(i int) { w.object(func() { body(i) }) })
}

// appendJSONDouble writes a number, or proto3 JSON's strings for the
// values JSON has no number for.
func appendJSONDouble(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendJSONString quotes valid UTF-8 as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
