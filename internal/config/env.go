package config

import (
	"fmt"
	"strconv"
	"strings"
)

// applyEnv applies the CODER_* variables (they override every file but
// not the flags) and NO_COLOR. An empty variable counts as unset, so `export
// CODER_MODEL=` switches an override off.
func (l *Loaded) applyEnv() error {
	get := func(name string) string {
		v, _ := l.env(name)
		return strings.TrimSpace(v)
	}
	p := &l.Config.Provider
	if v := strings.ToLower(get("CODER_PROVIDER")); v != "" {
		if v != p.effectiveType() {
			p.clearConnection()
		}
		p.Type = v
		l.origins["provider.type"] = origin{other: "CODER_PROVIDER"}
	}
	l.setString(&p.BaseURL, "provider.base_url", "CODER_BASE_URL", get("CODER_BASE_URL"))
	l.setString(&p.APIKey, "provider.api_key", "CODER_API_KEY", get("CODER_API_KEY"))
	l.setString(&p.Model, "provider.model", "CODER_MODEL", get("CODER_MODEL"))
	if v := get("CODER_MAX_STEPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return &EnvError{Var: "CODER_MAX_STEPS", Problem: fmt.Sprintf("must be a whole number, got %q", v)}
		}
		l.Config.Runtime.MaxSteps = n
		l.origins["runtime.max_steps"] = origin{other: "CODER_MAX_STEPS"}
	}
	if v := get("CODER_ENABLE_TELEMETRY"); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return &EnvError{Var: "CODER_ENABLE_TELEMETRY", Problem: fmt.Sprintf("must be 1, 0, true or false, got %q", v)}
		}
		l.Config.Telemetry.Enabled = on
		l.origins["telemetry.enabled"] = origin{other: "CODER_ENABLE_TELEMETRY"}
	}
	// https://no-color.org: a non-empty NO_COLOR turns colour off unless the user
	// asked for it explicitly with "always".
	if get("NO_COLOR") != "" && l.Config.UI.Color == "auto" {
		l.Config.UI.Color = "never"
		l.origins["ui.color"] = origin{other: "NO_COLOR"}
	}
	return nil
}

// applyFlags applies the command-line overrides, the last layer.
func (l *Loaded) applyFlags(f Overrides) {
	l.setString(&l.Config.Provider.Model, "provider.model", "--model", strings.TrimSpace(f.Model))
	l.setString(&l.Config.Agents.Default, "agents.default", "--mode", strings.TrimSpace(f.Mode))
	l.setString(&l.Config.Permission.Preset, "permission.preset", "--permissions", strings.TrimSpace(f.Permissions))
}

func (l *Loaded) setString(dst *string, key, from, v string) {
	if v == "" {
		return
	}
	*dst = v
	l.origins[key] = origin{other: from}
}

// resetOnSwitch runs before a file layer is decoded: a layer that picks a
// different provider type or profile starts the connection settings afresh, so
// a key or base URL meant for one endpoint is never sent to another.
func resetOnSwitch(p *Provider, raw map[string]any) {
	sec, _ := raw["provider"].(map[string]any)
	t, hasType := sec["type"].(string)
	prof, hasProfile := sec["profile"].(string)
	if (hasType && t != p.Type) || (hasProfile && prof != p.Profile) {
		p.clearConnection()
	}
}

// clearConnection forgets which endpoint to talk to and how, keeping the
// transport settings (timeouts, retries) and the profiles table. Headers go
// too: they often carry credentials.
func (p *Provider) clearConnection() {
	p.Type, p.Profile, p.BaseURL, p.APIKey, p.APIKeyEnv, p.Model = "", "", "", "", "", ""
	p.Headers = nil
}

// effectiveType is the type the main section or its selected profile names.
func (p *Provider) effectiveType() string {
	if p.Type != "" {
		return p.Type
	}
	return p.Profiles[p.Profile].Type
}
