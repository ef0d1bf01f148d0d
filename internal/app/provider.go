package app

import (
	"fmt"
	"net/url"
	"time"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/anthropic"
	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/llm/responses"
)

// wireBuilders build the provider of each wire protocol the provider
// table (catalog.Wires) names, from the resolved configuration and its
// endpoint; TestEveryWireIsBuilt holds the two lists together.
var wireBuilders = []struct {
	wire  string
	build func(rp config.ResolvedProvider, ep llm.Endpoint) llm.Provider
}{
	{"openai", openAIStyle},
	{"openai-responses", openAIStyle},
	{"anthropic", func(rp config.ResolvedProvider, ep llm.Endpoint) llm.Provider {
		return anthropic.New(anthropic.Config{Endpoint: ep, Model: rp.Model, MaxTokens: rp.MaxTokens,
			ThinkingBudget: rp.Reasoning.BudgetTokens, Effort: rp.Reasoning.Effort})
	}},
}

// openAIStyle is an OpenAI-style endpoint's provider: api.openai.com with
// no type named speaks the Responses API for the models OpenAI serves
// first there, Chat Completions for the others (responses.ForWire).
func openAIStyle(rp config.ResolvedProvider, ep llm.Endpoint) llm.Provider {
	cfg := openai.Config{Endpoint: ep, Model: rp.Model, MaxTokens: rp.MaxTokens, ReasoningEffort: rp.Reasoning.Effort}
	return responses.ForWire(cfg, rp.Type, rp.TypeNamed)
}

// newProvider builds the configured provider wrapped in the retry policy.
// cat, the catalog provider of the endpoint, shapes its requests; errors name
// the endpoint (OpenRouter, DeepSeek, …).
func newProvider(rp config.ResolvedProvider, cat string, sink event.Sink) (llm.Provider, error) {
	ep := llm.Endpoint{BaseURL: rp.BaseURL, APIKey: rp.APIKey, Headers: rp.Headers,
		IdleTimeout: rp.Timeout, CallTimeout: rp.CallTimeout,
		Label: providerLabel(rp, cat), Catalog: cat, KeyHint: keyHint(rp)}
	var p llm.Provider
	for _, b := range wireBuilders {
		if b.wire == rp.Type {
			p = b.build(rp, ep)
		}
	}
	if p == nil {
		return nil, fmt.Errorf("provider type %q has no provider in this build of coder", rp.Type)
	}
	return llm.WithRetry(p, llm.RetryPolicy{
		MaxRetries: rp.MaxRetries,
		OnRetry: func(attempt int, wait time.Duration, err error) {
			sink.Emit(event.Notice{Text: fmt.Sprintf("retrying model call in %s (attempt %d): %v",
				wait.Round(10*time.Millisecond), attempt, err)})
			sink.Emit(event.Progress{Phase: event.PhaseRetrying, Detail: err.Error(), Delay: wait, Attempt: attempt})
		},
	}), nil
}

// keyHint names, in 401/403 messages, the variable a preset's key comes
// from (DEEPSEEK_API_KEY for deepseek); "" leaves the wire's own.
func keyHint(rp config.ResolvedProvider) string {
	if p, ok := catalog.PresetNamed(rp.Name); ok && p.KeyEnv != "" {
		return p.KeyEnv + " or CODER_API_KEY"
	}
	return ""
}

// providerLabel names the endpoint in errors: the catalog's name for it,
// else its preset's label (a local Ollama), else the host of a custom
// endpoint, else the wire type.
func providerLabel(rp config.ResolvedProvider, cat string) string {
	if info, ok := catalog.ProviderInfo(cat); ok {
		return info.Name
	}
	if p, ok := catalog.PresetNamed(rp.Name); ok {
		return p.Label
	}
	if u, err := url.Parse(rp.BaseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return rp.Type
}
