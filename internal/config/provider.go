package config

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/llm/catalog"
)

// ResolvedProvider is everything a provider client needs to connect. Its String,
// Format, GoString and MarshalJSON never reveal APIKey (see secret.go).
type ResolvedProvider struct {
	// Name is the known preset the endpoint belongs to ("deepseek", "ollama", …),
	// or "" for a custom endpoint.
	Name string
	Type string // the wire protocol: a catalog.Wire's name
	// TypeNamed: the person named Type (provider.type in a file or a
	// profile, CODER_PROVIDER) rather than leaving it to be inferred or
	// detected. A named "openai" is Chat Completions whatever the model.
	TypeNamed bool
	BaseURL   string // normalised: OpenAI-style ends in /vN, Anthropic without /v1
	APIKey    string // "" when the endpoint needs none
	Model     string
	Headers   map[string]string
	Timeout   time.Duration // 0 = none
	// CallTimeout bounds one whole model request; 0 = none.
	CallTimeout time.Duration
	MaxRetries  int
	MaxTokens   int // 0 = the provider's default
	Reasoning   Reasoning
	// Images says whether the model takes images; nil: the catalog says.
	Images *bool
	// Source says where the provider came from, for messages: "env
	// ANTHROPIC_API_KEY", "config", "config /path/config.json", "ollama", …
	Source string
}

// ResolveProvider decides which endpoint, key and model to use:
//
//  1. a provider in the config (type, base_url, api_key or api_key_env set in
//     the main section or the selected profile; the CODER_* variables were
//     applied to the main section by Load);
//  2. else the first known preset whose API key variable is set;
//  3. else a local Ollama, if probe finds one;
//  4. else ErrNoProvider.
//
// env nil means os.LookupEnv; probe nil means no local Ollama is looked
// for (coder passes ollama.Probe). Nothing else in
// coder needs a provider, so `coder --help` never calls this.
func ResolveProvider(ctx context.Context, c Config, env EnvFunc, probe ProbeFunc) (ResolvedProvider, error) {
	if env == nil {
		env = os.LookupEnv
	}
	if probe == nil {
		probe = func(context.Context, string) (string, bool) { return "", false }
	}
	p, err := withProfile(c.Provider)
	if err != nil {
		return ResolvedProvider{}, err
	}
	var rp ResolvedProvider
	if p.Type != "" || p.BaseURL != "" || p.APIKey != "" || p.APIKeyEnv != "" {
		rp, err = fromConfig(p, env)
	} else {
		rp, err = autodetect(ctx, p, env, probe)
	}
	if err != nil {
		return ResolvedProvider{}, err
	}
	rp.Headers = maps.Clone(p.Headers)
	rp.Timeout = time.Duration(p.TimeoutMS) * time.Millisecond
	if p.CallTimeoutMS != nil {
		rp.CallTimeout = time.Duration(*p.CallTimeoutMS) * time.Millisecond
	}
	if p.MaxRetries != nil {
		rp.MaxRetries = *p.MaxRetries
	}
	rp.MaxTokens, rp.Reasoning, rp.Images = p.MaxTokens, p.Reasoning, p.Images
	if saved := p.SavedModels[rp.BaseURL]; saved != "" && p.Model == "" {
		rp.Model = saved // what /model chose for this endpoint
	}
	if rp.Model == "" {
		return ResolvedProvider{}, fmt.Errorf("no model set for %s: set CODER_MODEL=<name>, pass --model <name>, "+
			`or add "model" to the "provider" section of ./.coder/config.json`, rp.BaseURL)
	}
	return rp, nil
}

// withProfile fills what the main section leaves empty from the selected profile.
// Timeout and retries count as empty while they hold the built-in default, so a
// profile can change them.
func withProfile(p Provider) (Provider, error) {
	if p.Profile == "" {
		return p, nil
	}
	prof, ok := p.Profiles[p.Profile]
	if !ok {
		return p, &FileError{Key: "provider.profile", Problem: fmt.Sprintf("no profile %q in provider.profiles", p.Profile)}
	}
	def := Defaults().Provider
	fill(&p.Type, prof.Type)
	fill(&p.BaseURL, prof.BaseURL)
	fill(&p.Model, prof.Model)
	if p.APIKey == "" && p.APIKeyEnv == "" { // the key and its variable are one choice
		p.APIKey, p.APIKeyEnv = prof.APIKey, prof.APIKeyEnv
	}
	if (p.TimeoutMS == 0 || p.TimeoutMS == def.TimeoutMS) && prof.TimeoutMS != 0 {
		p.TimeoutMS = prof.TimeoutMS
	}
	if (p.CallTimeoutMS == nil || *p.CallTimeoutMS == *def.CallTimeoutMS) && prof.CallTimeoutMS != nil {
		p.CallTimeoutMS = prof.CallTimeoutMS
	}
	if (p.MaxRetries == nil || *p.MaxRetries == *def.MaxRetries) && prof.MaxRetries != nil {
		p.MaxRetries = prof.MaxRetries
	}
	if p.MaxTokens == 0 {
		p.MaxTokens = prof.MaxTokens
	}
	if p.Images == nil {
		p.Images = prof.Images
	}
	fill(&p.Reasoning.Effort, prof.Reasoning.Effort)
	if p.Reasoning.BudgetTokens == 0 {
		p.Reasoning.BudgetTokens = prof.Reasoning.BudgetTokens
	}
	headers := maps.Clone(prof.Headers)
	if headers == nil {
		headers = map[string]string{}
	}
	maps.Copy(headers, p.Headers)
	p.Headers = headers
	return p, nil
}

func fill(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// fromConfig resolves an explicitly configured provider. The key comes from
// api_key, else the variable api_key_env names, else the default variable of the
// endpoint's preset (by host) or of the type (OpenAI SDK convention: any base URL
// gets OPENAI_API_KEY).
func fromConfig(p Provider, env EnvFunc) (ResolvedProvider, error) {
	typ := p.Type
	if typ == "" {
		typ = inferType(p.BaseURL, p.APIKey)
	}
	wire, ok := catalog.WireNamed(typ)
	if !ok {
		return ResolvedProvider{}, &FileError{Key: "provider.type",
			Problem: fmt.Sprintf("must be %s, got %q", wireList(false), typ)}
	}
	def := presetNamed(wire.Preset)
	base, err := baseURL(p.BaseURL, def, env)
	if err != nil {
		return ResolvedProvider{}, err
	}
	base = normalizeBaseURL(typ, base)
	keyEnv, model := def.KeyEnv, p.Model
	pr, known := presetForURL(base)
	if known {
		keyEnv = pr.KeyEnv
		fill(&model, pr.Model)
	}
	key, source, err := configKey(p, keyEnv, env)
	if err != nil {
		return ResolvedProvider{}, err
	}
	if known && pr.KeyEnv != "" && key == "" {
		return ResolvedProvider{}, fmt.Errorf("no API key for %s (%s): set %s, or set provider.api_key_env "+
			"to the name of the variable holding it", pr.Label, base, pr.KeyEnv)
	}
	return ResolvedProvider{Name: pr.Name, Type: typ, TypeNamed: p.Type != "", BaseURL: base, APIKey: key, Model: model, Source: source}, nil
}

// inferType guesses the wire type when only a base URL or key is configured.
func inferType(base, key string) string {
	if pr, ok := presetForURL(base); ok {
		return pr.Wire
	}
	for _, w := range catalog.Wires() {
		if (w.URLWord != "" && strings.Contains(base, w.URLWord)) || (base == "" && w.KeyPrefix != "" && strings.HasPrefix(key, w.KeyPrefix)) {
			return w.Name
		}
	}
	return "openai"
}

// baseURL is the configured base URL, else the preset's *_BASE_URL variable,
// else the preset's default.
func baseURL(configured string, pr preset, env EnvFunc) (string, error) {
	if configured != "" {
		return configured, nil
	}
	if pr.BaseEnv != "" && pr.Name != "ollama" {
		if v, _ := env(pr.BaseEnv); strings.TrimSpace(v) != "" {
			if err := checkHTTPURL(strings.TrimSpace(v)); err != nil {
				return "", &EnvError{Var: pr.BaseEnv, Problem: err.Error()}
			}
			return strings.TrimSpace(v), nil
		}
	}
	return pr.BaseURL, nil
}

func configKey(p Provider, keyEnv string, env EnvFunc) (key, source string, err error) {
	switch {
	case p.APIKey != "":
		return p.APIKey, "config", nil
	case p.APIKeyEnv != "":
		v, _ := env(p.APIKeyEnv)
		if v = strings.TrimSpace(v); v == "" {
			return "", "", fmt.Errorf("provider.api_key_env names %s, but that variable is not set", p.APIKeyEnv)
		}
		return v, "env " + p.APIKeyEnv, nil
	case keyEnv != "":
		if v, _ := env(keyEnv); strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), "env " + keyEnv, nil
		}
	}
	return "", "config", nil
}

// autodetect picks the first preset whose key variable is set, else a local
// Ollama. p may still carry a model (CODER_MODEL, --model, a config file).
func autodetect(ctx context.Context, p Provider, env EnvFunc, probe ProbeFunc) (ResolvedProvider, error) {
	for _, pr := range presets() {
		if pr.KeyEnv == "" {
			continue
		}
		key, _ := env(pr.KeyEnv)
		if key = strings.TrimSpace(key); key == "" {
			continue
		}
		base, err := baseURL("", pr, env)
		if err != nil {
			return ResolvedProvider{}, err
		}
		model := p.Model
		fill(&model, pr.Model)
		return ResolvedProvider{Name: pr.Name, Type: pr.Wire, BaseURL: normalizeBaseURL(pr.Wire, base),
			APIKey: key, Model: model, Source: "env " + pr.KeyEnv}, nil
	}
	host := ollamaHost(env)
	found, ok := probe(ctx, host)
	if !ok {
		return ResolvedProvider{}, ErrNoProvider
	}
	model := p.Model
	fill(&model, found)
	if model == "" {
		return ResolvedProvider{}, fmt.Errorf("the Ollama server at %s has no models: run `ollama pull qwen2.5-coder` "+
			"(or another model), or set CODER_MODEL", host)
	}
	return ResolvedProvider{Name: "ollama", Type: presetNamed("ollama").Wire, BaseURL: host + "/v1", Model: model, Source: "ollama"}, nil
}
