package ollama

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestProbe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		handler   http.HandlerFunc
		wantModel string
		wantOK    bool
	}{
		{"models", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/api/tags" || r.Method != http.MethodGet {
				http.NotFound(w, r)
				return
			}
			w.Write([]byte(`{"models":[{"name":"qwen2.5-coder:7b","size":1},{"name":"llama3:8b"}]}`))
		}, "qwen2.5-coder:7b", true},
		{"no models", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"models":[]}`)) }, "", true},
		{"not ollama", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, "", false},
		{"garbage", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`<html>`)) }, "", false},
		{"too slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			start := time.Now()
			model, ok := Probe(context.Background(), srv.URL)
			if model != tt.wantModel || ok != tt.wantOK {
				t.Errorf("Probe = %q, %v; want %q, %v", model, ok, tt.wantModel, tt.wantOK)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("probe took %v", d)
			}
		})
	}
	t.Run("nothing listening", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		if _, ok := Probe(context.Background(), url); ok {
			t.Error("ok = true with no server")
		}
	})
}
