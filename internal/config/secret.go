package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
)

// Keys must never reach a terminal, a log or a session file. Both
// types that can hold one — ResolvedProvider and the Provider config section —
// redact themselves for every fmt verb and for JSON, so printing a Config or a
// Loaded with %+v is safe too.

const redacted = "***"

// String is a one-line summary for messages.
func (r ResolvedProvider) String() string {
	key := "none"
	if r.APIKey != "" {
		key = redacted
	}
	name := r.Type
	if r.Name != "" && r.Name != r.Type {
		name = r.Name + " (" + r.Type + ")"
	}
	return fmt.Sprintf("%s model=%s base_url=%s api_key=%s source=%q", name, r.Model, r.BaseURL, key, r.Source)
}

// plainResolved and plainProvider have the fields but not the methods, so fmt
// can print a redacted copy field by field without recursing into Format.
type (
	plainResolved ResolvedProvider
	plainProvider Provider
)

// GoString prints Go syntax with the key replaced.
func (r ResolvedProvider) GoString() string {
	return renamed(fmt.Sprintf("%#v", plainResolved(r.redacted())), "plainResolved", "ResolvedProvider")
}

// Format implements fmt.Formatter: %v and %s print String, %+v the redacted
// fields, %#v GoString.
func (r ResolvedProvider) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprint(f, r.GoString())
	case verb == 'v' && f.Flag('+'):
		fmt.Fprintf(f, "%+v", plainResolved(r.redacted()))
	default:
		fmt.Fprintf(f, fmt.FormatString(f, verb), r.String())
	}
}

// MarshalJSON leaves the key out; api_key_set says whether there is one.
func (r ResolvedProvider) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name          string            `json:"name,omitempty"`
		Type          string            `json:"type"`
		BaseURL       string            `json:"base_url"`
		APIKeySet     bool              `json:"api_key_set"`
		Model         string            `json:"model"`
		Headers       map[string]string `json:"headers,omitempty"`
		TimeoutMS     int64             `json:"timeout_ms"`
		CallTimeoutMS int64             `json:"call_timeout_ms"`
		MaxRetries    int               `json:"max_retries"`
		MaxTokens     int               `json:"max_tokens,omitempty"`
		Reasoning     Reasoning         `json:"reasoning,omitzero"`
		Source        string            `json:"source"`
	}{r.Name, r.Type, r.BaseURL, r.APIKey != "", r.Model, redactHeaders(r.Headers),
		r.Timeout.Milliseconds(), r.CallTimeout.Milliseconds(), r.MaxRetries, r.MaxTokens, r.Reasoning, r.Source})
}

func (r ResolvedProvider) redacted() ResolvedProvider {
	if r.APIKey != "" {
		r.APIKey = redacted
	}
	r.Headers = redactHeaders(r.Headers)
	return r
}

// Format implements fmt.Formatter for the config section, redacting api_key,
// credential headers and every profile's.
func (p Provider) Format(f fmt.State, verb rune) {
	s := fmt.Sprintf(fmt.FormatString(f, verb), plainProvider(p.redacted()))
	fmt.Fprint(f, renamed(s, "plainProvider", "Provider"))
}

// MarshalJSON leaves api_key out. It is for display; config files are written
// with SaveProjectValue, never by marshalling a Config.
func (p Provider) MarshalJSON() ([]byte, error) {
	pp := plainProvider(p.redacted())
	pp.APIKey = ""
	return json.Marshal(pp)
}

func (p Provider) redacted() Provider {
	if p.APIKey != "" {
		p.APIKey = redacted
	}
	p.Headers = redactHeaders(p.Headers)
	if p.Profiles != nil {
		profiles := make(map[string]Provider, len(p.Profiles))
		for name, prof := range p.Profiles {
			profiles[name] = prof.redacted()
		}
		p.Profiles = profiles
	}
	return p
}

// redactHeaders copies h with the values of credential-looking headers
// (Authorization, X-Api-Key, …) replaced.
func redactHeaders(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := maps.Clone(h)
	for name := range out {
		n := strings.ToLower(name)
		for _, s := range []string{"auth", "key", "token", "secret", "cookie", "password"} {
			if strings.Contains(n, s) {
				out[name] = redacted
			}
		}
	}
	return out
}

func renamed(s, from, to string) string {
	return strings.ReplaceAll(s, "config."+from, "config."+to)
}
