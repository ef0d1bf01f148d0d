package config

import (
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/weburl"
)

// preset is a well-known endpoint: a row of the provider table
// (internal/llm/catalog), where each known provider is declared once.
type preset = catalog.Preset

// presets are the known endpoints, in the order of auto-detection when only
// API key variables are set.
func presets() []preset { return catalog.Presets() }

func presetNamed(name string) preset {
	if p, ok := catalog.PresetNamed(name); ok {
		return p
	}
	panic("config: no preset " + name) // a typo in this package, caught by tests
}

// presetForURL finds the preset whose default endpoint has the same host, so a
// base URL of https://api.deepseek.com/anthropic still uses DEEPSEEK_API_KEY.
func presetForURL(base string) (preset, bool) {
	u, err := weburl.Parse(base)
	if err != nil {
		return preset{}, false
	}
	for _, p := range presets() {
		if pu, _ := weburl.Parse(p.BaseURL); strings.EqualFold(pu.Host, u.Host) {
			return p, true
		}
	}
	return preset{}, false
}

// normalizeBaseURL makes a base URL what the provider clients expect, so a URL
// written with or without /v1 works. A versioned wire's client appends
// /chat/completions (or /responses), so a bare host gets /v1 (a URL with its
// own path, such as .../v1beta/openai, is left alone); the others append
// the version themselves (/v1/messages), so a trailing /v1 is dropped.
func normalizeBaseURL(typ, base string) string {
	base = strings.TrimRight(strings.TrimSpace(base), "/")
	if w, ok := catalog.WireNamed(typ); ok && !w.Versioned {
		return strings.TrimSuffix(base, "/v1")
	}
	if u, err := weburl.Parse(base); err != nil || u.Path != "" {
		return base
	}
	return base + "/v1"
}

// ollamaHost turns OLLAMA_HOST (as the ollama CLI accepts it: "host",
// "host:port" or a URL) into a URL without a path.
func ollamaHost(env EnvFunc) string {
	h, _ := env("OLLAMA_HOST")
	h = strings.TrimRight(strings.TrimSpace(h), "/")
	if h == "" {
		return strings.TrimSuffix(presetNamed("ollama").BaseURL, "/v1")
	}
	if !strings.Contains(h, "://") {
		h = "http://" + h
	}
	if u, err := weburl.Parse(h); err == nil && u.Port() == "" && u.Scheme == "http" {
		h = u.WithPort("11434")
	}
	return h
}

// ErrNoProvider is returned by ResolveProvider when no provider is configured
// and no local Ollama answers. Its text is the help a user needs, written
// from the provider table when it is shown rather than at every start.
var ErrNoProvider error = noProviderError{}

type noProviderError struct{}

func (noProviderError) Error() string { return noProviderHelp() }

func noProviderHelp() string {
	var b strings.Builder
	b.WriteString("no model provider configured. Set an API key, for example:\n")
	for _, p := range presets() {
		if p.KeyEnv != "" {
			fmt.Fprintf(&b, "  export %-24s # %s, default model %s\n", p.KeyEnv+"=...", p.Label, p.Model)
		}
	}
	b.WriteString("or use any OpenAI-compatible server (llama.cpp, vLLM, LM Studio):\n")
	b.WriteString("  export CODER_PROVIDER=openai CODER_BASE_URL=http://127.0.0.1:8080/v1 CODER_MODEL=<model>\n")
	b.WriteString("  (add CODER_API_KEY=... if it needs a key; CODER_PROVIDER=anthropic for an Anthropic-compatible one)\n")
	b.WriteString("or start Ollama on http://127.0.0.1:11434 (OLLAMA_HOST) and `ollama pull` a model,\n")
	b.WriteString("or write ~/.config/coder/config.json (or ./.coder/config.json in the project):\n")
	b.WriteString(`  {"provider": {"type": "openai", "base_url": "https://api.deepseek.com/v1",` + "\n")
	b.WriteString(`                "api_key_env": "DEEPSEEK_API_KEY", "model": "deepseek-chat"}}`)
	return b.String()
}
