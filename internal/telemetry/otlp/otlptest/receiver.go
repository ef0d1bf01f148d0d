// Package otlptest is an OTLP/HTTP collector in miniature, for tests: it
// decodes what it receives, binary protobuf or JSON, into the official
// generated types (go.opentelemetry.io/proto/otlp), so that tests check
// coder's exporter against OpenTelemetry's own definitions. Tests only:
// the program never imports it, so protobuf's runtime is not linked into
// coder. It decodes into TracesData and MetricsData, which are
// ExportTraceServiceRequest and ExportMetricsServiceRequest field for
// field (resource_spans = 1, resource_metrics = 1), because the
// collector packages that define the requests import grpc.
package otlptest

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Receiver is the collector: an httptest server taking /v1/traces and
// /v1/metrics.
type Receiver struct {
	*httptest.Server
	mu       sync.Mutex
	traces   []*tracepb.TracesData
	metrics  []*metricpb.MetricsData
	requests []Request
	bad      []string
	answers  []Answer
}

// Request is what one request carried, its body decompressed.
type Request struct {
	Path, ContentType, ContentEncoding string
	Header                             http.Header
	Body                               []byte
	Time                               time.Time // when it arrived
}

// Answer is a scripted answer to one request, instead of a success.
type Answer struct {
	Status      int
	RetryAfter  string // the Retry-After header, if any
	ContentType string
	Body        []byte
}

// NewReceiver starts a receiver, closed when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	r := &Receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(r.handle))
	t.Cleanup(r.Close)
	return r
}

// NewTLSReceiver starts a receiver on https, with a certificate of its
// own (r.Certificate()).
func NewTLSReceiver(t testing.TB) *Receiver {
	r := &Receiver{}
	r.Server = httptest.NewTLSServer(http.HandlerFunc(r.handle))
	t.Cleanup(r.Close)
	return r
}

// Script makes the next requests get these answers, in order; the
// requests after them succeed. What a scripted answer refuses is not
// counted as received.
func (r *Receiver) Script(answers ...Answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers = append(r.answers, answers...)
}

func (r *Receiver) handle(w http.ResponseWriter, req *http.Request) {
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	raw, err := io.ReadAll(body)
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.bad = append(r.bad, "reading the body: "+err.Error())
	}
	ct := req.Header.Get("Content-Type")
	r.requests = append(r.requests, Request{Path: req.URL.Path, ContentType: ct,
		ContentEncoding: req.Header.Get("Content-Encoding"), Header: req.Header.Clone(), Body: raw, Time: now})
	if len(r.answers) > 0 {
		a := r.answers[0]
		r.answers = r.answers[1:]
		if a.RetryAfter != "" {
			w.Header().Set("Retry-After", a.RetryAfter)
		}
		if a.ContentType != "" {
			w.Header().Set("Content-Type", a.ContentType)
		}
		w.WriteHeader(a.Status)
		_, _ = w.Write(a.Body)
		return
	}
	isJSON := ct == "application/json"
	if !isJSON && ct != "application/x-protobuf" {
		r.bad = append(r.bad, "unexpected Content-Type "+ct)
		http.Error(w, "unsupported content type", http.StatusUnsupportedMediaType)
		return
	}
	switch req.URL.Path {
	case "/v1/traces":
		m, err := DecodeTraces(isJSON, raw)
		if err != nil {
			r.bad = append(r.bad, err.Error())
		}
		r.traces = append(r.traces, m)
	case "/v1/metrics":
		m, err := DecodeMetrics(isJSON, raw)
		if err != nil {
			r.bad = append(r.bad, err.Error())
		}
		r.metrics = append(r.metrics, m)
	default:
		r.bad = append(r.bad, "unexpected path "+req.URL.Path)
		http.NotFound(w, req)
		return
	}
	// A full success: an empty Export…ServiceResponse, in the request's
	// encoding (the specification).
	w.Header().Set("Content-Type", ct)
	if isJSON {
		_, _ = w.Write([]byte("{}"))
	}
}

// Traces are the trace requests received.
func (r *Receiver) Traces() []*tracepb.TracesData {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.TracesData(nil), r.traces...)
}

// Spans are every span received.
func (r *Receiver) Spans() []*tracepb.Span {
	var out []*tracepb.Span
	for _, req := range r.Traces() {
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	return out
}

// Metrics are the metric requests received.
func (r *Receiver) Metrics() []*metricpb.MetricsData {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*metricpb.MetricsData(nil), r.metrics...)
}

// Requests are every request, the refused ones too.
func (r *Receiver) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.requests...)
}

// Bad says what could not be decoded, or came where it should not.
func (r *Receiver) Bad() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bad...)
}

// DecodeTraces decodes an ExportTraceServiceRequest body.
func DecodeTraces(isJSON bool, body []byte) (*tracepb.TracesData, error) {
	m := &tracepb.TracesData{}
	return m, decode(isJSON, body, m)
}

// DecodeMetrics decodes an ExportMetricsServiceRequest body.
func DecodeMetrics(isJSON bool, body []byte) (*metricpb.MetricsData, error) {
	m := &metricpb.MetricsData{}
	return m, decode(isJSON, body, m)
}

// decode is proto.Unmarshal, or protojson.Unmarshal (which refuses
// unknown field names) after turning OTLP's hex ids into the base64 of
// protobuf's JSON mapping.
func decode(isJSON bool, body []byte, m proto.Message) error {
	if !isJSON {
		if err := proto.Unmarshal(body, m); err != nil {
			return fmt.Errorf("protobuf: %w", err)
		}
		return nil
	}
	std, err := hexIDsToBase64(body)
	if err != nil {
		return fmt.Errorf("json: %w", err)
	}
	if err := protojson.Unmarshal(std, m); err != nil {
		return fmt.Errorf("json: %w", err)
	}
	return nil
}

// hexIDsToBase64 rewrites every traceId, spanId and parentSpanId, which
// OTLP/JSON writes in hex, as base64; an id that is not hex is an error.
func hexIDsToBase64(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var bad []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && (k == "traceId" || k == "spanId" || k == "parentSpanId") {
					b, err := hex.DecodeString(s)
					if err != nil {
						bad = append(bad, fmt.Sprintf("%s %q is not hex", k, s))
						continue
					}
					v[k] = base64.StdEncoding.EncodeToString(b)
					continue
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	if len(bad) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(bad, "; "))
	}
	return json.Marshal(v)
}
