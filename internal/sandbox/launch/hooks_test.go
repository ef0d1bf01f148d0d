package launch

import (
	"slices"
	"testing"
)

// A hook gets the person's environment less coder's provider credentials,
// found by value whatever the variable's name; the person's own tokens
// pass, and the workspace is named once under both names.
func TestHookEnv(t *testing.T) {
	const key = "sk-provider-0123456789"
	environ := []string{
		"PATH=/usr/bin",
		"OPENAI_API_KEY=" + key,
		"MY_ALIAS=" + key,
		"GATEWAY_AUTH=Bearer " + key,
		"SHORT=abc",
		"GITHUB_TOKEN=ghp_person",
		"SLACK_WEBHOOK_URL=https://hooks.example/x",
		"CLAUDE_PROJECT_DIR=/elsewhere",
	}
	got := hookEnv(environ, "/ws", []string{key, "abc", ""})
	want := []string{"PATH=/usr/bin", "GITHUB_TOKEN=ghp_person", "SLACK_WEBHOOK_URL=https://hooks.example/x",
		"CODER_PROJECT_DIR=/ws", "CLAUDE_PROJECT_DIR=/ws"}
	if !slices.Equal(got, want) {
		t.Errorf("hookEnv:\n got %q\nwant %q", got, want)
	}
	// A short credential is dropped only where it is the whole value.
	if got := hookEnv([]string{"A=xabcx"}, "/ws", []string{"abc"}); got[0] != "A=xabcx" {
		t.Errorf("a short credential matched inside a value: %q", got)
	}
}
