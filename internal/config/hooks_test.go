package config

import (
	"path/filepath"
	"slices"
	"testing"
)

const claudeFile = `{
	"permissions": {"allow": ["Bash(npm test)"]},
	"model": "opus",
	"hooks": {
		"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "check.sh", "timeout": 5},
			{"type": "prompt", "prompt": "is this safe?"}]}],
		"PermissionRequest": [{"hooks": [{"type": "command", "command": "later.sh"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "stop.sh"}]}]
	}
}`

func TestHooksAddUpAcrossFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeUser(`{"hooks": {"PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": "user.sh"}]}]}}`)
	f.writeProject(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "project.sh", "timeout": 3}]}],
		"SessionStart": [{"hooks": [{"type": "command", "command": "start.sh"}]}]}}`)
	writeFile(t, filepath.Join(f.cwd, ".claude", "settings.json"), claudeFile)
	writeFile(t, filepath.Join(f.cwd, ".claude", "settings.local.json"),
		`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "local.sh"}]}]}}`)
	l := f.mustLoad()
	h := l.Config.Hooks.Events
	pre := h["PreToolUse"]
	if len(pre) != 3 {
		t.Fatalf("PreToolUse groups: %+v", pre)
	}
	want := []struct{ cmd, src string }{
		{"user.sh", f.userFile()}, {"project.sh", f.projectFile()}, {"check.sh", filepath.Join(f.cwd, ".claude", "settings.json")},
	}
	for i, w := range want {
		if pre[i].Hooks[0].Command != w.cmd || pre[i].Source != w.src {
			t.Errorf("group %d: %+v, want %s from %s", i, pre[i], w.cmd, w.src)
		}
	}
	if pre[0].Hooks[0].Timeout != DefaultHookTimeout || pre[1].Hooks[0].Timeout != 3 || pre[2].Hooks[0].Timeout != 5 {
		t.Errorf("timeouts: %d %d %d", pre[0].Hooks[0].Timeout, pre[1].Hooks[0].Timeout, pre[2].Hooks[0].Timeout)
	}
	// Claude Code's prompt hooks and events coder lacks are skipped.
	if len(pre[2].Hooks) != 1 || h["PermissionRequest"] != nil {
		t.Errorf("skipped nothing: %+v", h)
	}
	if len(h["Stop"]) != 1 || len(h["SessionStart"]) != 1 || len(h["UserPromptSubmit"]) != 1 {
		t.Errorf("hooks: %+v", h)
	}
}

func TestUntrustedWorkspaceIgnoresProjectHooks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.flags = Overrides{}
	f.writeUser(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "user.sh"}]}]}}`)
	f.writeProject(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "planted.sh"}]}]}}`)
	writeFile(t, filepath.Join(f.cwd, ".claude", "settings.json"), claudeFile)
	writeFile(t, filepath.Join(f.cwd, ".claude", "settings.local.json"),
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "local.sh"}]}]}}`)
	l := f.mustLoad()
	if h := l.Config.Hooks.Events; len(h) != 1 || len(h["Stop"]) != 1 || h["Stop"][0].Hooks[0].Command != "user.sh" {
		t.Errorf("hooks: %+v", l.Config.Hooks)
	}
	for _, w := range []string{"hooks", filepath.Join(".claude", "settings.json") + " hooks", filepath.Join(".claude", "settings.local.json") + " hooks"} {
		if !slices.Contains(l.Ignored, w) {
			t.Errorf("ignored %q, want %q among them", l.Ignored, w)
		}
	}
	wantContains(t, l.UntrustedNotice(), ".coder/config.json (not trusted yet): hooks", ".claude/settings.json (not trusted yet): hooks")
}

func TestClaudeSettingsWithoutHooksAreNotMentioned(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.flags = Overrides{}
	writeFile(t, filepath.Join(f.cwd, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(ls)"]}}`)
	if l := f.mustLoad(); len(l.Ignored) != 0 || len(l.Config.Hooks.Events) != 0 {
		t.Errorf("ignored %v, hooks %v", l.Ignored, l.Config.Hooks)
	}
}

func TestHookValidation(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "x"}]}]}}`:                     `unknown hook event "BeforeTool"`,
		`{"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "x"}]}]}}`: "not a valid regular expression",
		`{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "command": "x"}]}]}}`:                            "hooks.Stop[0].hooks[0].type",
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": " "}]}]}}`:                           "must be a shell command",
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}}`:            "timeout",
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "source": "y"}]}]}}`:            "unknown key",
		`{"hooks": {"sandbox": "yes"}}`:        "hooks.sandbox: must be true or false",
		`{"hooks": {"import_claude_user": 1}}`: "hooks.import_claude_user: must be true or false",
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "sandbox": "on"}]}]}}`: "hooks.Stop[0].hooks[0].sandbox",
		`{"hooks": {"Stop": {"hooks": []}}}`: "hooks.Stop: must be a list",
	}
	for file, want := range cases {
		f := newFixture(t)
		f.writeUser(file)
		wantContains(t, f.loadErr(), want)
	}
}

// hooks.sandbox and hooks.import_claude_user sit beside the event names;
// either file may turn them on, none turns the other's off. A hook's own
// "sandbox" is kept.
func TestHookSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeUser(`{"hooks": {"sandbox": true, "Stop": [{"hooks": [{"type": "command", "command": "user.sh", "sandbox": true}]}]}}`)
	f.writeProject(`{"hooks": {"sandbox": false, "import_claude_user": true, "Stop": [{"hooks": [{"type": "command", "command": "p.sh"}]}]}}`)
	h := f.mustLoad().Config.Hooks
	if !h.Sandbox || !h.ImportClaudeUser || len(h.Events) != 1 || len(h.Events["Stop"]) != 2 {
		t.Fatalf("%+v", h)
	}
	if stop := h.Events["Stop"]; !stop[0].Hooks[0].Sandbox || stop[1].Hooks[0].Sandbox {
		t.Errorf("per-hook sandbox: %+v", stop)
	}
	if _, ok := h.Events["sandbox"]; ok {
		t.Error("a setting was read as an event")
	}
}

// The person's ~/.claude/settings.json hooks run only when the person
// asks for them; then they need no trust (they are the person's own), and
// $CLAUDE_CONFIG_DIR moves them as it moves Claude Code's.
func TestImportClaudeUserHooks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.flags = Overrides{}
	home := t.TempDir()
	f.env["HOME"] = home
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), claudeFile)
	if h := f.mustLoad().Config.Hooks.Events; len(h) != 0 {
		t.Fatalf("imported without being asked: %+v", h)
	}
	f.writeUser(`{"hooks": {"import_claude_user": true}}`)
	l := f.mustLoad()
	h := l.Config.Hooks.Events
	src := filepath.Join(home, ".claude", "settings.json")
	if len(h["PreToolUse"]) != 1 || h["PreToolUse"][0].Hooks[0].Command != "check.sh" || h["PreToolUse"][0].Source != src ||
		len(h["Stop"]) != 1 || h["PermissionRequest"] != nil {
		t.Errorf("hooks: %+v", h)
	}
	if !slices.Contains(l.Files, src) || len(l.Ignored) != 0 {
		t.Errorf("files %v, ignored %v", l.Files, l.Ignored)
	}
	moved := t.TempDir()
	f.env["CLAUDE_CONFIG_DIR"] = moved
	writeFile(t, filepath.Join(moved, "settings.json"), `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "bye.sh"}]}]}}`)
	if h := f.mustLoad().Config.Hooks.Events; len(h) != 1 || h["SessionEnd"][0].Hooks[0].Command != "bye.sh" {
		t.Errorf("with CLAUDE_CONFIG_DIR: %+v", h)
	}
}
