package secrets

import (
	"slices"
	"strings"
	"testing"
)

func TestRedactor(t *testing.T) {
	r := NewRedactor(map[string]string{"OPENAI_API_KEY": "sk-abcdef123456", "header X-Token": "tok-99999999", "SHORT": "abc"})
	got := r.Redact("env: OPENAI_API_KEY=sk-abcdef123456 and tok-99999999 and abc")
	if strings.Contains(got, "sk-abcdef123456") || strings.Contains(got, "tok-99999999") ||
		!strings.Contains(got, "[redacted OPENAI_API_KEY]") || !strings.Contains(got, "[redacted header X-Token]") ||
		!strings.HasSuffix(got, "and abc") {
		t.Fatalf("got %q", got)
	}
	var none *Redactor
	if none.Redact("x") != "x" || none.Values() != nil {
		t.Fatal("nil redactor")
	}
}

func TestScrubEnv(t *testing.T) {
	r := NewRedactor(map[string]string{"key": "sk-abcdef123456"})
	env := []string{"PATH=/bin", "GITHUB_TOKEN=ghp_x", "OPENAI_API_KEY=sk-abcdef123456", "COPY=prefix-sk-abcdef123456",
		"SERVER_TOKEN=mine", "HOME=/h"}
	got := r.ScrubEnv(env, map[string]bool{"SERVER_TOKEN": true})
	if !slices.Equal(got, []string{"PATH=/bin", "SERVER_TOKEN=mine", "HOME=/h"}) {
		t.Fatalf("got %q", got)
	}
	for name, secret := range map[string]bool{"AWS_SECRET_ACCESS_KEY": true, "AWS_ACCESS_KEY_ID": true, "GITHUB_PAT": true,
		"GITHUB_TOKEN_RO": true, "npm_config__authToken": true, "PATH": false, "KEYBOARD": false, "HOME": false} {
		if IsSecretName(name) != secret {
			t.Errorf("IsSecretName(%q) = %v", name, !secret)
		}
	}
}

// Holds finds a secret anywhere in a value ("Bearer KEY"), and passes
// over values too short to be one — the same length the redactor ignores.
func TestHoldsIsTheRedactorsRule(t *testing.T) {
	for _, c := range []struct {
		value  string
		values []string
		want   bool
	}{
		{"Bearer sk-12345678", []string{"sk-12345678"}, true},
		{"Bearer sk-12345678", []string{"", "other-value", "sk-12345678"}, true},
		{"a 1234567 b", []string{"1234567"}, false}, // 7 bytes: ordinary text
		{"a 12345678 b", []string{"12345678"}, true},
		{"nothing here", []string{"sk-12345678"}, false},
	} {
		if got := Holds(c.value, c.values); got != c.want {
			t.Errorf("Holds(%q, %q) = %v, want %v", c.value, c.values, got, c.want)
		}
		redacted := NewRedactor(map[string]string{"K": c.values[len(c.values)-1]}).Redact(c.value) != c.value
		if redacted != c.want {
			t.Errorf("the redactor changes %q: %v, Holds says %v", c.value, redacted, c.want)
		}
	}
}
