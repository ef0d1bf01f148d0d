// Package ollama finds a local Ollama server for the provider's
// autodetection (config.Options.ProbeOllama). Apart from package config so
// that reading the configuration needs no HTTP client: `coder sandbox`
// reads it before the rest of coder initialises (sandbox/workspace).
package ollama

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// probeTimeout bounds the Ollama check: it runs at start-up only when nothing is
// configured, and a local server answers in a few milliseconds.
const probeTimeout = 300 * time.Millisecond

// Probe asks the Ollama server at baseURL (e.g. http://127.0.0.1:11434)
// for its models with GET /api/tags. It returns the first model's name ("" if
// there are none) and ok=true when a server answered; any failure is ok=false.
func Probe(ctx context.Context, baseURL string) (model string, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/api/tags", nil)
	if err != nil {
		return "", false
	}
	// A plain transport: no proxy from the environment (the server is local) and
	// no idle connection left behind after this one request.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return "", false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", false
	}
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tags); err != nil {
		return "", false
	}
	if len(tags.Models) == 0 {
		return "", true
	}
	return tags.Models[0].Name, true
}
