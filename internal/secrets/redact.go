package secrets

import (
	"sort"
	"strings"
)

// minSecret is the shortest value treated as a secret: shorter ones would
// blank out ordinary words.
const minSecret = 8

// Holds reports whether value holds one of the secret values anywhere in
// it. A value shorter than a secret can be (minSecret) is passed over: it
// would turn up by chance. It is the one rule for what a sandboxed
// command's, a bash call's or a hook's environment may not carry.
func Holds(value string, secretValues []string) bool {
	for _, s := range secretValues {
		if len(s) >= minSecret && strings.Contains(value, s) {
			return true
		}
	}
	return false
}

// secretSuffixes end the names of variables that usually hold credentials;
// secretParts mark one anywhere in the name (AWS_ACCESS_KEY_ID,
// GITHUB_TOKEN_RO).
var (
	secretSuffixes = []string{"_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_CREDENTIALS", "_PAT"}
	secretParts    = []string{"API_KEY", "APIKEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY", "ACCESS_KEY"}
)

// IsSecretName reports whether an environment variable's name says it holds
// a credential (OPENAI_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, …).
// It is the one rule: what is redacted, what an MCP server or a sandboxed
// command is not given.
func IsSecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, s := range secretSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	for _, p := range secretParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	return false
}

// FromEnvironment returns the secret-named variables of environ
// ("NAME=value" entries) as name → value.
func FromEnvironment(environ []string) map[string]string {
	out := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if ok && IsSecretName(k) && len(v) >= minSecret {
			out[k] = v
		}
	}
	return out
}

// Redactor replaces known secret values in text with their name, so a key
// read from the environment or a file never reaches the model, the session
// or any output. The zero value redacts nothing.
type Redactor struct {
	values []string // longest first, so a key containing another wins
	labels map[string]string
}

// NewRedactor redacts the values of named (label → value); values shorter
// than a secret can be (minSecret) are ignored.
func NewRedactor(named map[string]string) *Redactor {
	r := &Redactor{labels: map[string]string{}}
	for label, v := range named {
		if len(v) < minSecret {
			continue
		}
		if _, dup := r.labels[v]; !dup {
			r.values = append(r.values, v)
		}
		r.labels[v] = label
	}
	sort.Slice(r.values, func(i, j int) bool { return len(r.values[i]) > len(r.values[j]) })
	return r
}

// Redact returns s with every secret value replaced by "[redacted NAME]".
func (r *Redactor) Redact(s string) string {
	if r == nil {
		return s
	}
	for _, v := range r.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, "[redacted "+r.labels[v]+"]")
		}
	}
	return s
}

// Values are the secret values, for scrubbing environments.
func (r *Redactor) Values() []string {
	if r == nil {
		return nil
	}
	return r.values
}

// ScrubEnv drops the environment entries whose name says they hold a
// credential or whose value holds one of r's values, except the names in
// keep (a server's own configured variables).
func (r *Redactor) ScrubEnv(environ []string, keep map[string]bool) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if keep[k] {
			out = append(out, kv)
			continue
		}
		if IsSecretName(k) || r.holds(v) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func (r *Redactor) holds(v string) bool {
	if r == nil {
		return false
	}
	for _, s := range r.values {
		if strings.Contains(v, s) {
			return true
		}
	}
	return false
}
