package catalog

import (
	"strings"

	"github.com/coder-agent/coder/internal/chat"
)

// Lookup finds what the catalog knows about model when served by the
// catalog provider (see ProviderFor). It tries the provider's own entry,
// then the model's vendor's (from a "vendor/model" id or the model's
// name): each with the id as given, without a date suffix, without an
// OpenRouter ":variant", and lower-cased, then as an alias ("-latest" or
// undated, alias.go). Nothing else is guessed: an unknown model gets the
// callers' safe defaults, not a relative's limits.
func Lookup(provider, model string) (Model, bool) {
	ix := load()
	model = strings.TrimSpace(model)
	for _, p := range candidates(provider, model) {
		for _, id := range variants(p.model) {
			if m, ok := ix.find(p.provider, id); ok {
				return m, true
			}
		}
		if m, ok := ix.alias(p.provider, p.model); ok {
			return m, true
		}
	}
	return Model{}, false
}

// ContextWindow is the model's context window in tokens, 0 when unknown.
func ContextWindow(provider, model string) int {
	m, _ := Lookup(provider, model)
	return m.Context
}

// Price is what u cost on the model in US dollars; ok is false when the
// catalog has no price for it.
func Price(provider, model string, u chat.Usage) (usd float64, ok bool) {
	m, found := Lookup(provider, model)
	if !found || (m.Cost.Input == 0 && m.Cost.Output == 0) {
		return 0, false
	}
	return m.Price(u), true
}

type candidate struct{ provider, model string }

func candidates(provider, model string) []candidate {
	out := []candidate{{provider, model}}
	if vendor, rest, ok := strings.Cut(model, "/"); ok {
		if p := vendorProviders[strings.ToLower(vendor)]; p != "" {
			out = append(out, candidate{p, rest})
		}
		return out
	}
	if p := vendorOf(model); p != "" && p != provider {
		out = append(out, candidate{p, model})
	}
	return out
}

// vendorProviders maps the vendor part of "vendor/model" ids (OpenRouter,
// Vercel, Hugging Face) to the vendor's catalog provider.
var vendorProviders = map[string]string{
	"anthropic": "anthropic", "openai": "openai", "google": "google", "deepseek": "deepseek",
	"deepseek-ai": "deepseek", "moonshotai": "moonshotai", "z-ai": "zai", "zai": "zai", "zai-org": "zai",
	"x-ai": "xai", "xai": "xai", "qwen": "alibaba", "alibaba": "alibaba", "mistralai": "mistral", "mistral": "mistral",
}

// vendorOf names the vendor a bare model name belongs to.
func vendorOf(model string) string {
	m := strings.ToLower(model)
	for _, v := range []struct{ prefix, provider string }{
		{"claude", "anthropic"}, {"gpt-", "openai"}, {"chatgpt", "openai"}, {"codex", "openai"},
		{"o1", "openai"}, {"o3", "openai"}, {"o4", "openai"}, {"gemini", "google"},
		{"deepseek", "deepseek"}, {"kimi", "moonshotai"}, {"moonshot", "moonshotai"}, {"glm", "zai"},
		{"qwen", "alibaba"}, {"qwq", "alibaba"}, {"mistral", "mistral"}, {"magistral", "mistral"},
		{"codestral", "mistral"}, {"devstral", "mistral"}, {"ministral", "mistral"}, {"grok", "xai"},
	} {
		if strings.HasPrefix(m, v.prefix) {
			return v.provider
		}
	}
	return ""
}

// withoutDate drops the snapshot date a model id may end in: -20250514,
// -2025-08-07.
func withoutDate(id string) string {
	digits := func(s string) bool {
		return s != "" && strings.Trim(s, "0123456789") == ""
	}
	if i := strings.LastIndexByte(id, '-'); i > 0 && len(id)-i-1 == 8 && digits(id[i+1:]) {
		return id[:i]
	}
	if n := len(id); n > 11 && id[n-11] == '-' && id[n-6] == '-' && id[n-3] == '-' &&
		digits(id[n-10:n-6]) && digits(id[n-5:n-3]) && digits(id[n-2:]) {
		return id[:n-11]
	}
	return id
}

func variants(model string) []string {
	out := []string{model}
	add := func(s string) {
		for _, v := range out {
			if v == s {
				return
			}
		}
		out = append(out, s)
	}
	if i := strings.LastIndexByte(model, ':'); i > 0 {
		add(model[:i]) // OpenRouter ":free", ":thinking"
	}
	for _, v := range out {
		add(withoutDate(v))
	}
	for _, v := range out {
		add(strings.ToLower(v))
	}
	return out
}
