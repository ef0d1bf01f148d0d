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
	h := l.Config.Hooks
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
	if len(l.Config.Hooks) != 1 || len(l.Config.Hooks["Stop"]) != 1 || l.Config.Hooks["Stop"][0].Hooks[0].Command != "user.sh" {
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
	if l := f.mustLoad(); len(l.Ignored) != 0 || len(l.Config.Hooks) != 0 {
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
	}
	for file, want := range cases {
		f := newFixture(t)
		f.writeUser(file)
		wantContains(t, f.loadErr(), want)
	}
}
