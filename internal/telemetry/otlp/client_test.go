package otlp

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/coder-agent/coder/internal/telemetry/otlp/otlptest"
)

func oneSpan() []sdktrace.ReadOnlySpan {
	return tracetest.SpanStubs{{Name: "coder.turn", SpanContext: spanContext(rootID, false), StartTime: t0, EndTime: t0}}.Snapshots()
}

// traceExporter sends to rcv, with a short first backoff so retries
// are quick.
func traceExporter(url string, json bool) *TraceExporter {
	e := NewTraceExporter(Config{URL: url + "/v1/traces", JSON: json, Timeout: 30 * time.Second})
	e.c.firstWait = 20 * time.Millisecond
	return e
}

// TestRetriesWhatIsTransient: 429, 502, 503 and 504 are tried again, after
// the Retry-After the collector sent if it sent one; the data arrives.
func TestRetriesWhatIsTransient(t *testing.T) {
	for _, status := range []int{http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			t.Parallel()
			rcv := otlptest.NewReceiver(t)
			rcv.Script(otlptest.Answer{Status: status, RetryAfter: "1"}, otlptest.Answer{Status: status})
			if err := traceExporter(rcv.URL, false).ExportSpans(context.Background(), oneSpan()); err != nil {
				t.Fatal(err)
			}
			reqs := rcv.Requests()
			if len(reqs) != 3 || len(rcv.Spans()) != 1 {
				t.Fatalf("%d requests, %d spans received; want 3 and 1", len(reqs), len(rcv.Spans()))
			}
			if gap := reqs[1].Time.Sub(reqs[0].Time); gap < 900*time.Millisecond {
				t.Fatalf("retried %s after a Retry-After of 1 s", gap)
			}
		})
	}
}

// TestPermanentFailuresAreNotRetried: any other failure is reported once,
// with the collector's message (a google.rpc.Status, in either encoding).
func TestPermanentFailuresAreNotRetried(t *testing.T) {
	statusPB := []byte{0x12, 0x08, 'b', 'a', 'd', ' ', 'd', 'a', 't', 'a'} // Status{message: "bad data"}
	for _, tc := range []struct {
		answer otlptest.Answer
		want   string
	}{
		{otlptest.Answer{Status: 400, ContentType: ContentProtobuf, Body: statusPB}, "400 Bad Request: bad data"},
		{otlptest.Answer{Status: 401, ContentType: ContentJSON, Body: []byte(`{"code":16,"message":"no\nkey"}`)}, "401 Unauthorized: no key"},
		{otlptest.Answer{Status: 413, ContentType: "text/plain; charset=utf-8", Body: []byte("too big\nmore")}, "413 Request Entity Too Large: too big"},
		{otlptest.Answer{Status: 500, RetryAfter: "1"}, "500 Internal Server Error"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			rcv := otlptest.NewReceiver(t)
			rcv.Script(tc.answer)
			err := traceExporter(rcv.URL, false).ExportSpans(context.Background(), oneSpan())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if n := len(rcv.Requests()); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
		})
	}
}

// TestRetryAfterPastTheTimeout: a Retry-After longer than what is left of
// the export's timeout is not waited for.
func TestRetryAfterPastTheTimeout(t *testing.T) {
	rcv := otlptest.NewReceiver(t)
	rcv.Script(otlptest.Answer{Status: 503, RetryAfter: "3600"})
	start := time.Now()
	err := traceExporter(rcv.URL, false).ExportSpans(context.Background(), oneSpan())
	if err == nil || !strings.Contains(err.Error(), "not retried") || time.Since(start) > 20*time.Second {
		t.Fatalf("error %v after %s", err, time.Since(start))
	}
	if n := len(rcv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
}

// deadURL is an address nothing listens on.
func deadURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// TestDeadCollector: with nothing listening, an export retries within its
// timeout and then fails, saying why and where, without the credentials
// an endpoint may carry (user info, query); once draining (the program
// exiting), it tries once and fails at once.
func TestDeadCollector(t *testing.T) {
	dead := deadURL(t)
	u := strings.Replace(dead, "http://", "http://user:PASS-MARK@", 1) + "/v1/traces?token=QUERY-MARK"
	e := NewTraceExporter(Config{URL: u, Timeout: time.Second})
	e.c.firstWait = 50 * time.Millisecond
	err := e.ExportSpans(context.Background(), oneSpan())
	if err == nil || !strings.Contains(err.Error(), "export to "+dead+"/v1/traces: ") ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("error %v", err)
	}
	if strings.Contains(err.Error(), "MARK") {
		t.Fatalf("credentials in %v", err)
	}
	e.c.firstWait = time.Hour // a retry now would be seen
	e.Drain(context.Background())
	start := time.Now()
	err = e.ExportSpans(context.Background(), oneSpan())
	if err == nil || time.Since(start) > 30*time.Second {
		t.Fatalf("error %v after %s", err, time.Since(start))
	}
}

// TestDrainEndsAWaitingRetry: an export waiting to retry gives up when
// the program starts to exit, rather than holding the exit.
func TestDrainEndsAWaitingRetry(t *testing.T) {
	rcv := otlptest.NewReceiver(t)
	rcv.Script(otlptest.Answer{Status: 503})
	e := NewTraceExporter(Config{URL: rcv.URL + "/v1/traces", Timeout: time.Hour})
	e.c.firstWait = 10 * time.Minute
	done := make(chan error, 1)
	go func() { done <- e.ExportSpans(context.Background(), oneSpan()) }()
	for deadline := time.Now().Add(30 * time.Second); len(rcv.Requests()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no request")
		}
	}
	e.Drain(context.Background())
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "503") {
			t.Fatalf("error %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the export still waits to retry after the drain")
	}
}

// TestPartialSuccess: data the collector rejected in a success answer is
// reported, in either encoding, and not sent again.
func TestPartialSuccess(t *testing.T) {
	// ExportTraceServiceResponse{partial_success (1):
	// ExportTracePartialSuccess{rejected_spans (1): 3, error_message (2)}},
	// written with protobuf's own wire functions (the collector package
	// that defines it imports grpc).
	var partial []byte
	partial = protowire.AppendTag(partial, 1, protowire.VarintType)
	partial = protowire.AppendVarint(partial, 3)
	partial = protowire.AppendTag(partial, 2, protowire.BytesType)
	partial = protowire.AppendString(partial, "spans too old")
	pb := protowire.AppendTag(nil, 1, protowire.BytesType)
	pb = protowire.AppendBytes(pb, partial)
	js := []byte(`{"partialSuccess":{"rejectedSpans":"3","errorMessage":"spans too old"}}`)
	for _, enc := range encodings {
		t.Run(enc.name, func(t *testing.T) {
			rcv := otlptest.NewReceiver(t)
			if enc.json {
				rcv.Script(otlptest.Answer{Status: 200, ContentType: ContentJSON, Body: js})
			} else {
				rcv.Script(otlptest.Answer{Status: 200, ContentType: ContentProtobuf, Body: pb})
			}
			err := traceExporter(rcv.URL, enc.json).ExportSpans(context.Background(), oneSpan())
			if err == nil || !strings.Contains(err.Error(), "rejected 3 spans: spans too old") || len(rcv.Requests()) != 1 {
				t.Fatalf("error %v after %d requests", err, len(rcv.Requests()))
			}
		})
	}
}

// TestConfigReachesTheWire: the OTEL_EXPORTER_OTLP_* variables — headers
// (percent-decoded, per signal over general), protocol, compression —
// as the collector sees them; bad header entries are named without their
// values.
func TestConfigReachesTheWire(t *testing.T) {
	rcv := otlptest.NewReceiver(t)
	env := envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":         rcv.URL,
		"OTEL_EXPORTER_OTLP_HEADERS":          "authorization=Bearer%20s3cret, x-team = core ,no-equals-s3cret,bad key=s3cret",
		"OTEL_EXPORTER_OTLP_METRICS_HEADERS":  "x-only=metrics",
		"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL":  "http/json",
		"OTEL_EXPORTER_OTLP_COMPRESSION":      "gzip",
		"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/protobuf",
	})
	tcfg, warnings, err := ConfigFromEnv(Traces, env)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 2 || strings.Contains(strings.Join(warnings, " "), "s3cret") {
		t.Fatalf("warnings %q: want entries 3 and 4 named, no values", warnings)
	}
	tcfg.UserAgent = "coder/test"
	if err := NewTraceExporter(tcfg).ExportSpans(context.Background(), oneSpan()); err != nil {
		t.Fatal(err)
	}
	mcfg, _, err := ConfigFromEnv(Metrics, env)
	if err != nil {
		t.Fatal(err)
	}
	rm := &metricdata.ResourceMetrics{ScopeMetrics: []metricdata.ScopeMetrics{{Metrics: []metricdata.Metrics{
		{Name: "n", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Value: 1}}}}}}}}
	if err := NewMetricExporter(mcfg).Export(context.Background(), rm); err != nil {
		t.Fatal(err)
	}
	reqs := rcv.Requests()
	if len(reqs) != 2 || len(rcv.Bad()) > 0 || len(rcv.Spans()) != 1 || len(rcv.Metrics()) != 1 {
		t.Fatalf("%d requests, bad %v", len(reqs), rcv.Bad())
	}
	tr, mr := reqs[0], reqs[1]
	for _, c := range []struct{ got, want string }{
		{tr.Path, "/v1/traces"}, {tr.ContentType, ContentJSON}, {tr.ContentEncoding, "gzip"},
		{tr.Header.Get("Authorization"), "Bearer s3cret"}, {tr.Header.Get("X-Team"), "core"},
		{tr.Header.Get("User-Agent"), "coder/test"},
		{mr.Path, "/v1/metrics"}, {mr.ContentType, ContentProtobuf}, {mr.Header.Get("X-Only"), "metrics"},
		{mr.Header.Get("Authorization"), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestConfigFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name       string
		env        map[string]string
		sig        Signal
		url        string
		json, gzip bool
		timeout    time.Duration
		warning    string
		err        string
	}{
		{name: "defaults", url: "http://localhost:4318/v1/traces", timeout: DefaultTimeout},
		{name: "base URL with a path", sig: Metrics, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c.example:4318/otlp/"},
			url: "https://c.example:4318/otlp/v1/metrics", timeout: DefaultTimeout},
		{name: "per-signal URL as given", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:1",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:2/custom"}, url: "http://b:2/custom", timeout: DefaultTimeout},
		{name: "per-signal URL without a path", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:2"},
			url: "http://b:2/", timeout: DefaultTimeout},
		{name: "json, gzip, timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
			"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "2500"},
			url: "http://localhost:4318/v1/traces", json: true, gzip: true, timeout: 2500 * time.Millisecond},
		{name: "grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			url: "http://localhost:4318/v1/traces", timeout: DefaultTimeout, warning: "coder sends OTLP over HTTP (http/protobuf)"},
		{name: "bad timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"},
			url: "http://localhost:4318/v1/traces", timeout: DefaultTimeout, warning: "not a positive number of milliseconds"},
		{name: "bad compression", env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
			url: "http://localhost:4318/v1/traces", timeout: DefaultTimeout, warning: "not compressing"},
		{name: "no scheme", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
			err: "OTEL_EXPORTER_OTLP_ENDPOINT is not an http:// or https:// URL"},
		{name: "a certificate that is not there", env: map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent/ca.pem"},
			err: "OTEL_EXPORTER_OTLP_CERTIFICATE: open /nonexistent/ca.pem"},
		{name: "a client certificate without its key", env: map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": "/c.pem"},
			err: "go together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, warnings, err := ConfigFromEnv(tc.sig, envOf(tc.env))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.URL != tc.url || cfg.JSON != tc.json || cfg.Gzip != tc.gzip || cfg.Timeout != tc.timeout {
				t.Fatalf("config %+v", cfg)
			}
			if w := strings.Join(warnings, "\n"); (tc.warning == "") != (w == "") || !strings.Contains(w, tc.warning) {
				t.Fatalf("warnings %q, want %q", w, tc.warning)
			}
		})
	}
}

// TestTLSCertificate: OTEL_EXPORTER_OTLP_CERTIFICATE names the roots an
// https collector is checked against; without it, its own certificate is
// refused.
func TestTLSCertificate(t *testing.T) {
	rcv := otlptest.NewTLSReceiver(t)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: rcv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	export := func(env map[string]string) error {
		cfg, _, err := ConfigFromEnv(Traces, envOf(env))
		if err != nil {
			return err
		}
		cfg.Timeout = 2 * time.Second
		return NewTraceExporter(cfg).ExportSpans(context.Background(), oneSpan())
	}
	var unknownAuthority x509.UnknownAuthorityError
	if err := export(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.URL}); err == nil || !errors.As(err, &unknownAuthority) {
		t.Fatalf("without the certificate: %v", err)
	}
	if err := export(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": rcv.URL, "OTEL_EXPORTER_OTLP_CERTIFICATE": ca}); err != nil {
		t.Fatal(err)
	}
	if len(rcv.Spans()) != 1 {
		t.Fatalf("%d spans received", len(rcv.Spans()))
	}
}
