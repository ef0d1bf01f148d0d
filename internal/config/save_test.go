package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return m
}

func TestSaveProjectValuePreservesOtherKeys(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), ".coder", "config.json")
	writeFile(t, file, `{"provider": {"type": "openai", "api_key": "keep-me", "model": "old"},
		"runtime": {"max_steps": 12345678901}, "permission": {"command_allowlist": ["make && make test"]}}`)
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SaveProjectValue(file, []string{"provider", "model"}, "new"); err != nil {
		t.Fatal(err)
	}
	got := readJSON(t, file)
	want := map[string]any{
		"provider":   map[string]any{"type": "openai", "api_key": "keep-me", "model": "new"},
		"runtime":    map[string]any{"max_steps": 12345678901.0},
		"permission": map[string]any{"command_allowlist": []any{"make && make test"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	data, _ := os.ReadFile(file)
	wantContains(t, string(data), "\n  \"permission\": {\n    \"command_allowlist\"", "12345678901", "make && make test")
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600 kept", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(file))
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
}

func TestSaveProjectValueCreatesFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := SaveProjectValue(f.projectFile(), []string{"provider", "model"}, "deepseek-chat"); err != nil {
		t.Fatal(err)
	}
	if m := f.mustLoad().Config.Provider.Model; m != "deepseek-chat" {
		t.Errorf("model after save and load = %q", m)
	}
}

func TestSaveProjectValueRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		existing string
		path     []string
		value    any
		want     string
	}{
		{"api key path", "", []string{"provider", "api_key"}, "sk-x", "refusing to write an API key"},
		{"api key in value", "", []string{"provider", "profiles"}, map[string]any{"p": map[string]any{"api_key": "sk-x"}}, "refusing"},
		{"unknown key", "", []string{"provider", "modle"}, "x", `unknown key "provider.modle"`},
		{"wrong type", "", []string{"runtime", "max_steps"}, "ten", "must be a number"},
		{"through a scalar", `{"ui": "dark"}`, []string{"ui", "color"}, "never", "ui is not an object"},
		{"broken file", `{"ui": `, []string{"ui", "color"}, "never", "invalid JSON"},
		{"empty path", "", nil, "x", "needs a key path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), ".coder", "config.json")
			if tt.existing != "" {
				writeFile(t, file, tt.existing)
			}
			err := SaveProjectValue(file, tt.path, tt.value)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if tt.existing == "" {
				if _, err := os.Stat(file); !os.IsNotExist(err) {
					t.Error("file written despite the error")
				}
			}
		})
	}
}

func TestSaveStructValueOmitsKey(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "config.json")
	p := Provider{Type: "openai", APIKey: "sk-SECRET", Model: "m"}
	if err := SaveProjectValue(file, []string{"provider"}, p); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if strings.Contains(string(data), "sk-SECRET") {
		t.Errorf("key written:\n%s", data)
	}
}

func TestAppendProjectList(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeUser(`{"permission": {"command_allowlist": ["user-cmd"]}}`)
	f.writeProject(`{"provider": {"model": "m"}}`)
	path := []string{"permission", "command_allowlist"}
	for _, cmd := range []string{"go test ./...", "go test ./...", "npm run lint"} {
		if err := AppendProjectList(f.projectFile(), path, cmd); err != nil {
			t.Fatal(err)
		}
	}
	got := readJSON(t, f.projectFile())
	want := map[string]any{"provider": map[string]any{"model": "m"},
		"permission": map[string]any{"command_allowlist": []any{"go test ./...", "npm run lint"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	writeFile(t, f.projectFile(), `{"permission": {"command_allowlist": "oops"}}`)
	if err := AppendProjectList(f.projectFile(), path, "x"); err == nil {
		t.Error("appended to a non-list")
	}
}
