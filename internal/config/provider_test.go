package config

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func resolve(t *testing.T, c Config, env map[string]string) (ResolvedProvider, error) {
	t.Helper()
	return ResolveProvider(context.Background(), c, envOf(env), noProbe)
}

func mustResolve(t *testing.T, c Config, env map[string]string) ResolvedProvider {
	t.Helper()
	rp, err := resolve(t, c, env)
	if err != nil {
		t.Fatalf("ResolveProvider: %v", err)
	}
	return rp
}

func TestAutodetectEveryPreset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env, name, typ, base, model string
	}{
		{"ANTHROPIC_API_KEY", "anthropic", "anthropic", "https://api.anthropic.com", "claude-sonnet-4-5"},
		{"OPENAI_API_KEY", "openai", "openai", "https://api.openai.com/v1", "gpt-4.1"},
		{"DEEPSEEK_API_KEY", "deepseek", "openai", "https://api.deepseek.com/v1", "deepseek-chat"},
		{"OPENROUTER_API_KEY", "openrouter", "openai", "https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4.5"},
		{"DASHSCOPE_API_KEY", "dashscope", "openai", "https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus"},
		{"MOONSHOT_API_KEY", "moonshot", "openai", "https://api.moonshot.cn/v1", "kimi-k2-0905-preview"},
		{"ZHIPUAI_API_KEY", "zhipu", "openai", "https://open.bigmodel.cn/api/paas/v4", "glm-4.6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rp := mustResolve(t, Defaults(), map[string]string{tt.env: "k-" + tt.name})
			want := ResolvedProvider{Name: tt.name, Type: tt.typ, BaseURL: tt.base, APIKey: "k-" + tt.name,
				Model: tt.model, Source: "env " + tt.env}
			if rp.Name != want.Name || rp.Type != want.Type || rp.BaseURL != want.BaseURL ||
				rp.APIKey != want.APIKey || rp.Model != want.Model || rp.Source != want.Source {
				t.Errorf("got  %+v\nwant %+v", rp, want)
			}
			if rp.TypeNamed {
				t.Error("a detected provider's type counts as named")
			}
			if rp.Timeout != time.Duration(Defaults().Provider.TimeoutMS)*time.Millisecond || rp.MaxRetries != *Defaults().Provider.MaxRetries {
				t.Errorf("timeout %v retries %d, want the defaults", rp.Timeout, rp.MaxRetries)
			}
		})
	}
}

func TestAutodetectOrderAndBaseEnv(t *testing.T) {
	t.Parallel()
	rp := mustResolve(t, Defaults(), map[string]string{"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a", "DEEPSEEK_API_KEY": "d"})
	if rp.Name != "anthropic" {
		t.Errorf("picked %s, want anthropic first", rp.Name)
	}
	rp = mustResolve(t, Defaults(), map[string]string{"OPENAI_API_KEY": "o", "OPENAI_BASE_URL": "https://proxy.example/v1/"})
	if rp.BaseURL != "https://proxy.example/v1" {
		t.Errorf("base = %q", rp.BaseURL)
	}
	rp = mustResolve(t, Defaults(), map[string]string{"ANTHROPIC_API_KEY": "a", "ANTHROPIC_BASE_URL": "https://gw.example/v1"})
	if rp.BaseURL != "https://gw.example" {
		t.Errorf("anthropic base = %q, want /v1 stripped", rp.BaseURL)
	}
	_, err := resolve(t, Defaults(), map[string]string{"OPENAI_API_KEY": "o", "OPENAI_BASE_URL": "nope"})
	var ee *EnvError
	if !errors.As(err, &ee) || ee.Var != "OPENAI_BASE_URL" {
		t.Errorf("bad OPENAI_BASE_URL: err = %v", err)
	}
}

func TestConfiguredProvider(t *testing.T) {
	t.Parallel()
	cfg := func(p Provider) Config {
		c := Defaults()
		p.TimeoutMS, p.MaxRetries = c.Provider.TimeoutMS, c.Provider.MaxRetries
		c.Provider = p
		return c
	}
	tests := []struct {
		name                   string
		p                      Provider
		env                    map[string]string
		base, key, model, from string
		err                    string
	}{
		{"key in config", Provider{Type: "openai", APIKey: "cfg"}, map[string]string{"OPENAI_API_KEY": "env"},
			"https://api.openai.com/v1", "cfg", "gpt-4.1", "config", ""},
		{"api_key_env", Provider{Type: "anthropic", APIKeyEnv: "MY_KEY"}, map[string]string{"MY_KEY": "mine", "ANTHROPIC_API_KEY": "x"},
			"https://api.anthropic.com", "mine", "claude-sonnet-4-5", "env MY_KEY", ""},
		{"api_key_env unset", Provider{Type: "anthropic", APIKeyEnv: "MY_KEY"}, nil, "", "", "", "", "MY_KEY, but that variable is not set"},
		{"responses type: OpenAI's key and URL", Provider{Type: "openai-responses", Model: "gpt-5"}, map[string]string{"OPENAI_API_KEY": "env"},
			"https://api.openai.com/v1", "env", "gpt-5", "env OPENAI_API_KEY", ""},
		{"responses type, another host", Provider{Type: "openai-responses", BaseURL: "https://gw.example.com", Model: "m"}, map[string]string{"OPENAI_API_KEY": "env"},
			"https://gw.example.com/v1", "env", "m", "env OPENAI_API_KEY", ""},
		{"type default env", Provider{Type: "openai"}, map[string]string{"OPENAI_API_KEY": "env"},
			"https://api.openai.com/v1", "env", "gpt-4.1", "env OPENAI_API_KEY", ""},
		{"type base env", Provider{Type: "openai", Model: "m"}, map[string]string{"OPENAI_API_KEY": "e", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
			"http://127.0.0.1:9/v1", "e", "m", "env OPENAI_API_KEY", ""},
		{"preset host picks its key", Provider{Type: "openai", BaseURL: "https://api.deepseek.com"},
			map[string]string{"DEEPSEEK_API_KEY": "ds", "OPENAI_API_KEY": "oa"},
			"https://api.deepseek.com/v1", "ds", "deepseek-chat", "env DEEPSEEK_API_KEY", ""},
		{"anthropic-compatible preset host", Provider{Type: "anthropic", BaseURL: "https://api.deepseek.com/anthropic"},
			map[string]string{"DEEPSEEK_API_KEY": "ds"}, "https://api.deepseek.com/anthropic", "ds", "deepseek-chat", "env DEEPSEEK_API_KEY", ""},
		{"local server needs no key", Provider{Type: "openai", BaseURL: "http://127.0.0.1:8080", Model: "qwen"}, nil,
			"http://127.0.0.1:8080/v1", "", "qwen", "config", ""},
		{"type inferred from base", Provider{BaseURL: "https://api.anthropic.com/v1", APIKey: "k"}, nil,
			"https://api.anthropic.com", "k", "claude-sonnet-4-5", "config", ""},
		{"known host without key", Provider{Type: "openai"}, nil, "", "", "", "", "no API key for OpenAI"},
		{"custom host without model", Provider{Type: "openai", BaseURL: "http://127.0.0.1:8080/v1"}, nil, "", "", "", "",
			"no model set for http://127.0.0.1:8080/v1: set CODER_MODEL"},
		{"invalid type", Provider{Type: "gemini", APIKey: "k"}, nil, "", "", "", "", `provider.type: must be "openai"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rp, err := resolve(t, cfg(tt.p), tt.env)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rp.BaseURL != tt.base || rp.APIKey != tt.key || rp.Model != tt.model || rp.Source != tt.from {
				t.Errorf("got base=%q key=%q model=%q source=%q", rp.BaseURL, rp.APIKey, rp.Model, rp.Source)
			}
			if rp.TypeNamed != (tt.p.Type != "") {
				t.Errorf("TypeNamed = %v for type %q", rp.TypeNamed, tt.p.Type)
			}
		})
	}
}

// TestCoderVariables goes through Load, which applies the CODER_* variables.
func TestCoderVariables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                  string
		user                  string
		env                   map[string]string
		flags                 Overrides
		typ, base, key, model string
		source                string
	}{
		{"local server, with /v1", "", map[string]string{"CODER_PROVIDER": "openai", "CODER_BASE_URL": "http://127.0.0.1:8080/v1",
			"CODER_MODEL": "llama", "ANTHROPIC_API_KEY": "a"}, Overrides{}, "openai", "http://127.0.0.1:8080/v1", "", "llama", "config"},
		{"local server, without /v1", "", map[string]string{"CODER_PROVIDER": "openai", "CODER_BASE_URL": "http://127.0.0.1:8080/",
			"CODER_MODEL": "llama"}, Overrides{}, "openai", "http://127.0.0.1:8080/v1", "", "llama", "config"},
		{"CODER_API_KEY over file", `{"provider": {"type": "openai", "api_key": "file-key"}}`,
			map[string]string{"CODER_API_KEY": "env-key"}, Overrides{}, "openai", "https://api.openai.com/v1", "env-key", "gpt-4.1", "env CODER_API_KEY"},
		{"file key source", `{"provider": {"type": "openai", "api_key": "file-key"}}`, nil, Overrides{},
			"openai", "https://api.openai.com/v1", "file-key", "gpt-4.1", "config FILE"},
		{"CODER_PROVIDER anthropic with base /v1", "", map[string]string{"CODER_PROVIDER": "anthropic",
			"CODER_BASE_URL": "https://gw.example/v1", "CODER_API_KEY": "k", "CODER_MODEL": "c"}, Overrides{},
			"anthropic", "https://gw.example", "k", "c", "env CODER_API_KEY"},
		{"CODER_MODEL over file, flag over both", `{"provider": {"model": "file-m"}}`,
			map[string]string{"CODER_MODEL": "env-m", "OPENAI_API_KEY": "o"}, Overrides{Model: "flag-m"},
			"openai", "https://api.openai.com/v1", "o", "flag-m", "env OPENAI_API_KEY"},
		{"CODER_MODEL with detected key", "", map[string]string{"CODER_MODEL": "deepseek-reasoner", "DEEPSEEK_API_KEY": "d"}, Overrides{},
			"openai", "https://api.deepseek.com/v1", "d", "deepseek-reasoner", "env DEEPSEEK_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tt.user != "" {
				f.writeUser(tt.user)
			}
			if tt.env != nil {
				f.env = tt.env
			}
			f.flags = tt.flags
			l := f.mustLoad()
			rp, err := l.ResolveProvider(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			source := strings.ReplaceAll(tt.source, "FILE", f.userFile())
			if rp.Type != tt.typ || rp.BaseURL != tt.base || rp.APIKey != tt.key || rp.Model != tt.model || rp.Source != source {
				t.Errorf("got type=%q base=%q key=%q model=%q source=%q", rp.Type, rp.BaseURL, rp.APIKey, rp.Model, rp.Source)
			}
			if named := tt.env["CODER_PROVIDER"] != "" || strings.Contains(tt.user, `"type"`); rp.TypeNamed != named {
				t.Errorf("TypeNamed = %v, want %v", rp.TypeNamed, named)
			}
			if l.Provider.Model != rp.Model {
				t.Error("Loaded.Provider not stored")
			}
		})
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ typ, in, want string }{
		{"openai", "http://127.0.0.1:8080", "http://127.0.0.1:8080/v1"},
		{"openai", "http://127.0.0.1:8080/", "http://127.0.0.1:8080/v1"},
		{"openai", "http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"},
		{"openai", "http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"},
		{"openai", " https://api.deepseek.com ", "https://api.deepseek.com/v1"},
		{"openai", "https://open.bigmodel.cn/api/paas/v4", "https://open.bigmodel.cn/api/paas/v4"},
		{"openai", "https://open.bigmodel.cn/api/paas/v4/", "https://open.bigmodel.cn/api/paas/v4"},
		{"openai", "https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1"},
		// A URL with its own path is the user's exact endpoint (Gemini's OpenAI layer).
		{"openai", "https://generativelanguage.googleapis.com/v1beta/openai", "https://generativelanguage.googleapis.com/v1beta/openai"},
		{"anthropic", "https://api.anthropic.com", "https://api.anthropic.com"},
		{"anthropic", "https://api.anthropic.com/", "https://api.anthropic.com"},
		{"anthropic", "https://api.anthropic.com/v1", "https://api.anthropic.com"},
		{"anthropic", "https://api.anthropic.com/v1/", "https://api.anthropic.com"},
		{"anthropic", "https://api.deepseek.com/anthropic", "https://api.deepseek.com/anthropic"},
	}
	for _, tt := range tests {
		if got := normalizeBaseURL(tt.typ, tt.in); got != tt.want {
			t.Errorf("normalizeBaseURL(%s, %q) = %q, want %q", tt.typ, tt.in, got, tt.want)
		}
	}
}

func TestProfiles(t *testing.T) {
	t.Parallel()
	c := Defaults()
	c.Provider.Profiles = map[string]Provider{
		"ds":    {Type: "openai", BaseURL: "https://api.deepseek.com", APIKeyEnv: "DS", Model: "deepseek-chat", TimeoutMS: 1000, Headers: map[string]string{"a": "1", "b": "1"}},
		"local": {Type: "openai", BaseURL: "http://127.0.0.1:8080", Model: "qwen"},
	}
	c.Provider.Profile = "ds"
	c.Provider.Headers = map[string]string{"b": "2"}
	rp := mustResolve(t, c, map[string]string{"DS": "ds-key"})
	if rp.BaseURL != "https://api.deepseek.com/v1" || rp.APIKey != "ds-key" || rp.Model != "deepseek-chat" ||
		rp.Timeout != time.Second || rp.Headers["a"] != "1" || rp.Headers["b"] != "2" {
		t.Errorf("ds profile: %+v", rp)
	}
	c.Provider.Model = "deepseek-reasoner" // the main section wins over the profile
	if rp := mustResolve(t, c, map[string]string{"DS": "k"}); rp.Model != "deepseek-reasoner" {
		t.Errorf("model = %q, want the main section's", rp.Model)
	}
	c.Provider.Profile, c.Provider.Model = "local", ""
	if rp := mustResolve(t, c, nil); rp.BaseURL != "http://127.0.0.1:8080/v1" || rp.Model != "qwen" || rp.APIKey != "" {
		t.Errorf("local profile: %+v", rp)
	}
	c.Provider.Profile = "gone"
	if _, err := resolve(t, c, nil); err == nil || !strings.Contains(err.Error(), `no profile "gone"`) {
		t.Errorf("missing profile: err = %v", err)
	}
}

// TestCallTimeout: the default bound, a file's own (0: none), a profile's.
func TestCallTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeUser(`{"provider": {"type": "openai", "base_url": "http://127.0.0.1:8080", "model": "m"}}`)
	rp, err := f.mustLoad().ResolveProvider(context.Background())
	if err != nil || rp.CallTimeout != 10*time.Minute {
		t.Fatalf("default: %v, %v", rp.CallTimeout, err)
	}
	f.writeProject(`{"provider": {"call_timeout_ms": 0}}`)
	if rp, err = f.mustLoad().ResolveProvider(context.Background()); err != nil || rp.CallTimeout != 0 {
		t.Fatalf("0 in a file: %v, %v", rp.CallTimeout, err)
	}
	c := Defaults()
	c.Provider.Profiles = map[string]Provider{"slow": {Type: "openai", BaseURL: "http://127.0.0.1:8080", Model: "m", CallTimeoutMS: intPtr(1000)}}
	c.Provider.Profile = "slow"
	if rp := mustResolve(t, c, nil); rp.CallTimeout != time.Second {
		t.Fatalf("profile: %v", rp.CallTimeout)
	}
}

func TestProfileFromFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeUser(`{"provider": {"type": "anthropic", "model": "claude-x",
		"profiles": {"local": {"type": "openai", "base_url": "http://127.0.0.1:8080", "model": "qwen"}}}}`)
	f.writeProject(`{"provider": {"profile": "local"}}`)
	l := f.mustLoad()
	rp, err := l.ResolveProvider(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rp.Type != "openai" || rp.Model != "qwen" {
		t.Errorf("got %+v: the project's profile should replace the user's anthropic choice", rp)
	}
}

func TestNoProvider(t *testing.T) {
	t.Parallel()
	_, err := resolve(t, Defaults(), nil)
	if !errors.Is(err, ErrNoProvider) {
		t.Fatalf("err = %v, want ErrNoProvider", err)
	}
	wantContains(t, err.Error(), "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY",
		"CODER_PROVIDER=openai CODER_BASE_URL=http://127.0.0.1:8080/v1 CODER_MODEL=", "config.json", "Ollama")
}

func TestOllamaFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		env       map[string]string
		model     string // configured
		found     string
		ok        bool
		wantHost  string
		wantModel string
		wantErr   string
	}{
		{"default host", nil, "", "qwen2.5-coder:7b", true, "http://127.0.0.1:11434", "qwen2.5-coder:7b", ""},
		{"OLLAMA_HOST bare", map[string]string{"OLLAMA_HOST": "gpu-box"}, "", "llama3", true, "http://gpu-box:11434", "llama3", ""},
		{"OLLAMA_HOST url", map[string]string{"OLLAMA_HOST": "http://10.0.0.2:9999/"}, "", "m", true, "http://10.0.0.2:9999", "m", ""},
		{"configured model wins", nil, "codellama", "llama3", true, "http://127.0.0.1:11434", "codellama", ""},
		{"no models", nil, "", "", true, "http://127.0.0.1:11434", "", "ollama pull"},
		{"not running", nil, "", "", false, "http://127.0.0.1:11434", "", "no model provider configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Defaults()
			c.Provider.Model = tt.model
			var asked string
			probe := func(_ context.Context, base string) (string, bool) {
				asked = base
				return tt.found, tt.ok
			}
			rp, err := ResolveProvider(context.Background(), c, envOf(tt.env), probe)
			if asked != tt.wantHost {
				t.Errorf("probed %q, want %q", asked, tt.wantHost)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rp.Name != "ollama" || rp.Type != "openai" || rp.BaseURL != tt.wantHost+"/v1" ||
				rp.Model != tt.wantModel || rp.APIKey != "" || rp.Source != "ollama" {
				t.Errorf("got %+v", rp)
			}
		})
	}
}

func TestProbeNotCalledWhenConfigured(t *testing.T) {
	t.Parallel()
	called := false
	probe := func(context.Context, string) (string, bool) { called = true; return "", false }
	if _, err := ResolveProvider(context.Background(), Defaults(), envOf(map[string]string{"OPENAI_API_KEY": "k"}), probe); err != nil {
		t.Fatal(err)
	}
	if called {
		t.Error("probed Ollama although OPENAI_API_KEY is set")
	}
}
