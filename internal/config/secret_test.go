package config

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// formats renders v every way a careless caller might.
func formats(t *testing.T, v any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		out[verb] = fmt.Sprintf(verb, v)
	}
	out["Sprint"] = fmt.Sprint(v)
	out["Sprintln"] = fmt.Sprintln(v)
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	out["json"] = string(data)
	return out
}

func assertNoSecret(t *testing.T, what string, v any, secrets ...string) {
	t.Helper()
	for how, s := range formats(t, v) {
		for _, secret := range secrets {
			if strings.Contains(s, secret) || strings.Contains(s, fmt.Sprintf("%x", secret)) {
				t.Errorf("%s printed with %s reveals %q:\n%s", what, how, secret, s)
			}
		}
	}
}

func TestResolvedProviderNeverPrintsKey(t *testing.T) {
	t.Parallel()
	const key = "sk-live-SECRET-123456"
	rp := ResolvedProvider{Name: "openai", Type: "openai", BaseURL: "https://api.openai.com/v1", APIKey: key,
		Model: "gpt-4.1", Headers: map[string]string{"Authorization": "Bearer hdr-SECRET", "X-Title": "coder"}, Source: "env OPENAI_API_KEY"}
	assertNoSecret(t, "ResolvedProvider", rp, key, "hdr-SECRET")
	assertNoSecret(t, "*ResolvedProvider", &rp, key, "hdr-SECRET")
	wantContains(t, rp.String(), "api_key=***", "model=gpt-4.1")
	wantContains(t, fmt.Sprintf("%#v", rp), "config.ResolvedProvider{", `APIKey:"***"`)
	wantContains(t, fmt.Sprintf("%+v", rp), "Model:gpt-4.1", "X-Title:coder")
	data, _ := json.Marshal(rp)
	wantContains(t, string(data), `"api_key_set":true`, `"model":"gpt-4.1"`)
	if rp.APIKey != key {
		t.Error("formatting changed the value itself")
	}
}

func TestConfigAndLoadedNeverPrintKey(t *testing.T) {
	t.Parallel()
	const fileKey, envKey, profKey = "file-SECRET-aaa", "env-SECRET-bbb", "prof-SECRET-ccc"
	f := newFixture(t)
	f.writeUser(`{"provider": {"type": "openai", "api_key": "` + fileKey + `",
		"profiles": {"p": {"api_key": "` + profKey + `"}}}}`)
	l := f.mustLoad()
	assertNoSecret(t, "Config", l.Config, fileKey, profKey)
	assertNoSecret(t, "Provider section", l.Config.Provider, fileKey, profKey)

	f.env["CODER_API_KEY"] = envKey
	l = f.mustLoad()
	if _, err := l.ResolveProvider(context.Background()); err != nil {
		t.Fatal(err)
	}
	if l.Provider.APIKey != envKey {
		t.Fatalf("resolved key = %q", l.Provider.APIKey)
	}
	assertNoSecret(t, "Loaded", l, fileKey, envKey, profKey)
	assertNoSecret(t, "*Loaded", *l, fileKey, envKey, profKey)
}
