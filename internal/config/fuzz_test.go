package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad loads any user config.json, project .mcp.json and project
// .coder/config.json. It never panics; a failure is an error that names
// one of the files; and a configuration that loads, written back as a
// project file on its own, loads to the same configuration (nothing was
// accepted that the file format cannot say).
func FuzzLoad(f *testing.F) {
	f.Add(`{"runtime": {"max_steps": 10}}`, ``, `{"provider": {"type": "openai", "base_url": "http://127.0.0.1:1/v1", "model": "m"}}`)
	f.Add(``, `{"mcpServers": {"s": {"command": "srv", "args": ["-x"], "env": {"A": "1"}}, "h": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}`, `{}`)
	f.Add(`{"provider": {"profile": "p", "profiles": {"p": {"type": "anthropic", "api_key_env": "K", "model": "c", "max_retries": 0}}}}`, ``, `{"provider": {"type": "openai"}}`)
	f.Add(`{"permission": {"preset": "strict", "tools": {"bash": "ask"}, "bash": [{"pattern": "git *", "action": "allow"}], "command_allowlist": ["ls"]}}`, ``, ` `)
	f.Add(``, ``, `{"agents": {"default": "plan", "definitions": [{"name": "x", "mode": "build", "tools": ["read"], "max_steps": 3}]}}`)
	f.Add(``, ``, `{"compaction": {"threshold": 1e-9, "recent_messages": 0}, "ui": {"timezone": "UTC", "color": "never"}}`)
	f.Add(``, ``, `{"runtime": {"max_steps": 3.0}}`)
	f.Add(``, ``, `{"runtime": {"max_steps": 1e400}}`)
	f.Add(``, ``, `{"runtime": {"max_steps": "many"}}`)
	f.Add(``, ``, `{"runtime": {"max_steps": 5, "max_steps": "x"}}`)
	f.Add(``, ``, `{"Runtime": {}}`)
	f.Add(``, ``, "\xef\xbb\xbf{\"storage\": {\"dir\": \".c\"}}")
	f.Add(``, ``, `{"provider": {"headers": {"Authorization": "Bearer x"}, "timeout_ms": -1}} trailing`)
	f.Add(`[1,2]`, `null`, `{"skills": {"paths": null}}`)
	f.Add(``, ``, `{"workflow": {"verify_commands": ["go test ./..."], "max_verify_attempts": 2}, "safety": {"command_timeout_ms": 1, "output_limit_bytes": 1}}`)
	f.Add(`{"hooks": {"import_claude_user": true, "Stop": [{"hooks": [{"type": "command", "command": "s.sh"}]}]}}`, ``,
		`{"hooks": {"sandbox": true, "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "sandbox": true}]}], "Stop": null}}`)
	f.Add(``, ``, `{"hooks": null}`)
	f.Fuzz(func(t *testing.T, user, mcp, project string) {
		root := t.TempDir()
		userDir, cwd := filepath.Join(root, "user"), filepath.Join(root, "proj")
		files := map[string]string{
			filepath.Join(userDir, "config.json"):       user,
			filepath.Join(cwd, ".mcp.json"):             mcp,
			filepath.Join(cwd, ".coder", "config.json"): project,
		}
		for p, content := range files {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if content == "" {
				continue
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		load := func() (*Loaded, error) {
			return Load(Options{Cwd: cwd, UserConfigDir: userDir, Env: envOf(map[string]string{}), ProbeOllama: noProbe,
				Flags: Overrides{Trust: true}})
		}
		l, err := load()
		if err != nil {
			msg := err.Error()
			named := false
			for p := range files {
				named = named || strings.Contains(msg, p)
			}
			if !strings.HasPrefix(msg, "config") || !named {
				t.Fatalf("the error does not name a config file: %q", msg)
			}
			return
		}
		// Write the effective configuration back as the only file.
		out, err := json.Marshal(l.Config)
		if err != nil {
			t.Fatalf("the loaded configuration does not encode: %v", err)
		}
		for p := range files {
			_ = os.Remove(p)
		}
		if err := os.WriteFile(filepath.Join(cwd, ".coder", "config.json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
		l2, err := load()
		if err != nil {
			t.Fatalf("the loaded configuration, written back, does not load: %v\n%s", err, out)
		}
		again, _ := json.Marshal(l2.Config)
		if string(again) != string(out) {
			t.Fatalf("the configuration changed on a round trip:\n%s\n%s", out, again)
		}
	})
}
