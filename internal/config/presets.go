package config

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// preset is a well-known endpoint: its wire type, where its key and base URL
// come from, and a default model.
type preset struct {
	Name    string
	Label   string // for the no-provider help text
	Type    string // "openai" or "anthropic"
	KeyEnv  string // "" = no key needed
	BaseEnv string // variable overriding BaseURL, following the vendor SDK
	BaseURL string
	Model   string // "" = must be configured or discovered
}

// presets is the single table of known providers. The order is the order of
// auto-detection when only API key variables are set.
var presets = []preset{
	{"anthropic", "Anthropic (Claude)", "anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "https://api.anthropic.com", "claude-sonnet-4-5"},
	{"openai", "OpenAI", "openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1", "gpt-4.1"},
	{"deepseek", "DeepSeek", "openai", "DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL", "https://api.deepseek.com/v1", "deepseek-chat"},
	{"openrouter", "OpenRouter", "openai", "OPENROUTER_API_KEY", "", "https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4.5"},
	{"dashscope", "Qwen (DashScope)", "openai", "DASHSCOPE_API_KEY", "", "https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus"},
	{"moonshot", "Kimi (Moonshot)", "openai", "MOONSHOT_API_KEY", "", "https://api.moonshot.cn/v1", "kimi-k2-0905-preview"},
	{"zhipu", "GLM (Zhipu)", "openai", "ZHIPUAI_API_KEY", "", "https://open.bigmodel.cn/api/paas/v4", "glm-4.6"},
	// Ollama is never auto-detected from a key; ResolveProvider probes it last.
	// OLLAMA_HOST is a host, not a base URL: see ollamaHost.
	{"ollama", "Ollama", "openai", "", "OLLAMA_HOST", "http://127.0.0.1:11434/v1", ""},
}

func presetNamed(name string) preset {
	for _, p := range presets {
		if p.Name == name {
			return p
		}
	}
	panic("config: no preset " + name) // a typo in this package, caught by tests
}

// presetForURL finds the preset whose default endpoint has the same host, so a
// base URL of https://api.deepseek.com/anthropic still uses DEEPSEEK_API_KEY.
func presetForURL(base string) (preset, bool) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return preset{}, false
	}
	for _, p := range presets {
		if pu, _ := url.Parse(p.BaseURL); strings.EqualFold(pu.Host, u.Host) {
			return p, true
		}
	}
	return preset{}, false
}

// normalizeBaseURL makes a base URL what the provider clients expect, so a URL
// written with or without /v1 works. OpenAI-style clients append
// /chat/completions, so a bare host gets /v1 (a URL with its own path, such as
// .../v1beta/openai, is left alone); the Anthropic client appends
// /v1/messages, so a trailing /v1 is dropped.
func normalizeBaseURL(typ, base string) string {
	base = strings.TrimRight(strings.TrimSpace(base), "/")
	if typ == "anthropic" {
		return strings.TrimSuffix(base, "/v1")
	}
	if u, err := url.Parse(base); err != nil || u.Path != "" {
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
	if u, err := url.Parse(h); err == nil && u.Port() == "" && u.Scheme == "http" {
		u.Host += ":11434"
		h = u.String()
	}
	return h
}

// ErrNoProvider is returned by ResolveProvider when no provider is configured
// and no local Ollama answers. Its text is the help a user needs.
var ErrNoProvider = errors.New(noProviderHelp())

func noProviderHelp() string {
	var b strings.Builder
	b.WriteString("no model provider configured. Set an API key, for example:\n")
	for _, p := range presets {
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
