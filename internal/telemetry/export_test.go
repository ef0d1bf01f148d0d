package telemetry

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func emitTurn(p *Pipeline) {
	s := p.Sink(SinkOptions{})
	for _, e := range turnEvents() {
		s.Emit(e)
	}
}

// TestDeadCollectorDoesNotHoldTheExit: with nothing listening and an
// export timeout of a minute, the exit is not spent retrying: the final
// export tries once, and the failure is reported.
func TestDeadCollectorDoesNotHoldTheExit(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	p, err := Start(context.Background(), "test", envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": dead, "OTEL_EXPORTER_OTLP_TIMEOUT": "60000"}))
	if err != nil || p == nil {
		t.Fatalf("start: %v", err)
	}
	emitTurn(p)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	err = p.Shutdown(ctx)
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the exit took %s", took)
	}
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("shutdown error %v", err)
	}
}

// TestHangingCollectorDoesNotHoldATurn: a collector that takes requests
// and never answers slows no event, and the exit ends when its bound
// does.
func TestHangingCollectorDoesNotHoldATurn(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	p, err := Start(context.Background(), "test", envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL, "OTEL_BSP_SCHEDULE_DELAY": "1", "OTEL_METRIC_EXPORT_INTERVAL": "1"}))
	if err != nil || p == nil {
		t.Fatalf("start: %v", err)
	}
	done := make(chan struct{})
	go func() {
		for range 200 {
			emitTurn(p)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("emitting events blocked on the collector")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := p.Shutdown(ctx); err == nil {
		t.Fatal("no error from a collector that never answered")
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("the exit took %s, bounded at 0.5 s", took)
	}
}

// TestProtocolWarnings: a protocol coder does not speak is said once, at
// start, with what it sends instead.
func TestProtocolWarnings(t *testing.T) {
	p, err := Start(context.Background(), "test", envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}))
	if err != nil || p == nil {
		t.Fatalf("start: %v", err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = p.Shutdown(ctx)
	}()
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "OTEL_EXPORTER_OTLP_PROTOCOL=grpc: coder sends OTLP over HTTP (http/protobuf)") {
		t.Fatalf("warnings %q", p.Warnings)
	}
}

// TestBadEndpointTurnsTelemetryOff: an endpoint that is not a URL is an
// error at start (telemetry stays off, and the person is told).
func TestBadEndpointTurnsTelemetryOff(t *testing.T) {
	p, err := Start(context.Background(), "test", envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}))
	if p != nil || err == nil || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_ENDPOINT is not an http:// or https:// URL") {
		t.Fatalf("pipeline %v, error %v", p, err)
	}
}
