package config

import (
	"context"
	"testing"
)

// A model /model saved for an endpoint is used whenever that endpoint is in
// use and nothing else names a model: with CODER_PROVIDER set and no
// CODER_MODEL (which drops the file's provider.model), and not for another
// endpoint.
func TestSavedModelFollowsItsEndpoint(t *testing.T) {
	t.Parallel()
	const base = "http://127.0.0.1:8080/v1"
	for _, tt := range []struct {
		name  string
		env   map[string]string
		model string
	}{
		{"CODER_PROVIDER without CODER_MODEL", map[string]string{"CODER_PROVIDER": "openai", "CODER_BASE_URL": base}, "saved-m"},
		{"CODER_MODEL still wins", map[string]string{"CODER_PROVIDER": "openai", "CODER_BASE_URL": base, "CODER_MODEL": "env-m"}, "env-m"},
		{"another endpoint", map[string]string{"CODER_PROVIDER": "openai", "CODER_BASE_URL": "http://127.0.0.1:9090/v1", "CODER_MODEL": "x"}, "x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.writeProject(`{"provider": {"model": "saved-m", "saved_models": {"` + base + `": "saved-m"}}}`)
			f.env = tt.env
			rp, err := f.mustLoad().ResolveProvider(context.Background())
			if err != nil || rp.Model != tt.model {
				t.Fatalf("model %q, err %v; want %q", rp.Model, err, tt.model)
			}
		})
	}
	// Without a saved model for it, another endpoint needs a model named.
	f := newFixture(t)
	f.writeProject(`{"provider": {"saved_models": {"` + base + `": "saved-m"}}}`)
	f.env = map[string]string{"CODER_PROVIDER": "openai", "CODER_BASE_URL": "http://127.0.0.1:9090/v1"}
	if _, err := f.mustLoad().ResolveProvider(context.Background()); err == nil {
		t.Fatal("a model saved for another endpoint was used")
	}
}

func TestMarkdownDefaultsOn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if !f.mustLoad().Config.UI.Markdown {
		t.Fatal("ui.markdown is off by default")
	}
	f.writeProject(`{"ui": {"markdown": false}}`)
	if f.mustLoad().Config.UI.Markdown {
		t.Fatal("ui.markdown: false ignored")
	}
}
