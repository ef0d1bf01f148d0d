package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestLoadDefaultsWhenNoFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	l := f.mustLoad()
	want := Defaults()
	want.Runtime.WorkspaceRoot = f.cwd
	if !reflect.DeepEqual(l.Config, want) {
		t.Errorf("config = %+v\nwant %+v", l.Config, want)
	}
	if len(l.Files) != 0 {
		t.Errorf("Files = %v, want none", l.Files)
	}
	if l.ProjectFile != f.projectFile() || l.Cwd != f.cwd || l.UserDir != f.user {
		t.Errorf("paths = %q %q %q", l.ProjectFile, l.Cwd, l.UserDir)
	}
	if len(f.probeCalls) != 0 {
		t.Errorf("Load probed Ollama: %v", f.probeCalls)
	}
}

func TestLayerPrecedence(t *testing.T) {
	t.Parallel()
	const user = `{"runtime": {"max_steps": 10}, "provider": {"model": "user-m"},
		"permission": {"preset": "strict"}, "agents": {"default": "plan"}, "ui": {"timezone": "UTC"}}`
	const project = `{"runtime": {"max_steps": 20}, "provider": {"model": "proj-m"},
		"permission": {"preset": "auto-edit"}, "agents": {"default": "build"}}`
	type result struct {
		steps         int
		model, preset string
		agent, tz     string
	}
	tests := []struct {
		name          string
		user, project string
		env           map[string]string
		flags         Overrides
		want          result
	}{
		{"defaults", "", "", nil, Overrides{}, result{50, "", "balanced", "build", "Asia/Shanghai"}},
		{"user", user, "", nil, Overrides{}, result{10, "user-m", "strict", "plan", "UTC"}},
		{"project over user", user, project, nil, Overrides{}, result{20, "proj-m", "auto-edit", "build", "UTC"}},
		{"env over project", user, project, map[string]string{"CODER_MAX_STEPS": "30", "CODER_MODEL": "env-m"},
			Overrides{}, result{30, "env-m", "auto-edit", "build", "UTC"}},
		{"flags over env", user, project, map[string]string{"CODER_MAX_STEPS": "30", "CODER_MODEL": "env-m"},
			Overrides{Model: "flag-m", Mode: "plan", Permissions: "yolo"}, result{30, "flag-m", "yolo", "plan", "UTC"}},
		{"empty env var is unset", user, "", map[string]string{"CODER_MODEL": ""}, Overrides{},
			result{10, "user-m", "strict", "plan", "UTC"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tt.user != "" {
				f.writeUser(tt.user)
			}
			if tt.project != "" {
				f.writeProject(tt.project)
			}
			f.env, f.flags = tt.env, tt.flags
			f.flags.Trust = true
			c := f.mustLoad().Config
			got := result{c.Runtime.MaxSteps, c.Provider.Model, c.Permission.Preset, c.Agents.Default, c.UI.Timezone}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMapsMergeListsReplace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeUser(`{"permission": {"tools": {"read": "allow", "bash": "deny"}},
		"workflow": {"verify_commands": ["go test ./...", "go vet ./..."]},
		"mcp": {"servers": {"a": {"command": "a-server"}}}}`)
	f.writeProject(`{"permission": {"tools": {"bash": "ask"}},
		"workflow": {"verify_commands": ["make check"]},
		"mcp": {"servers": {"b": {"url": "http://127.0.0.1:9000/mcp"}}}}`)
	c := f.mustLoad().Config
	if want := map[string]string{"read": "allow", "bash": "ask"}; !reflect.DeepEqual(c.Permission.Tools, want) {
		t.Errorf("tools = %v, want %v", c.Permission.Tools, want)
	}
	if want := []string{"make check"}; !slices.Equal(c.Workflow.VerifyCommands, want) {
		t.Errorf("verify_commands = %v, want %v", c.Workflow.VerifyCommands, want)
	}
	if len(c.MCP.Servers) != 2 {
		t.Errorf("servers = %v, want a and b", c.MCP.Servers)
	}
	if !c.Compaction.Auto || c.Compaction.Threshold != 0.8 {
		t.Errorf("untouched defaults changed: %+v", c.Compaction)
	}
}

func TestUserDirFromEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  func(root string) map[string]string
		dir  func(root string) string
	}{
		{"XDG_CONFIG_HOME", func(r string) map[string]string { return map[string]string{"XDG_CONFIG_HOME": r + "/xdg", "HOME": r} },
			func(r string) string { return r + "/xdg/coder" }},
		{"HOME", func(r string) map[string]string { return map[string]string{"HOME": r} },
			func(r string) string { return r + "/.config/coder" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeFile(t, tt.dir(root)+"/config.json", `{"runtime": {"max_steps": 7}}`)
			l, err := Load(Options{Cwd: root, Env: envOf(tt.env(root))})
			if err != nil {
				t.Fatal(err)
			}
			if l.UserDir != tt.dir(root) || l.Config.Runtime.MaxSteps != 7 {
				t.Errorf("UserDir = %q, max_steps = %d", l.UserDir, l.Config.Runtime.MaxSteps)
			}
		})
	}
}

func TestUnknownKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, want string
	}{
		{"typo", `{"provider": {"modle": "x"}}`, `unknown key "provider.modle"; did you mean "provider.model"?`},
		{"case and underscores", `{"provider": {"baseURL": "x"}}`, `did you mean "provider.base_url"?`},
		{"misplaced", `{"max_steps": 3}`, `unknown key "max_steps"; did you mean "runtime.max_steps"?`},
		{"inside a map of structs", `{"provider": {"profiles": {"ds": {"modle": "x"}}}}`,
			`unknown key "provider.profiles.ds.modle"; did you mean "provider.profiles.ds.model"?`},
		{"inside a list", `{"permission": {"bash": [{"pattern": "ls", "acton": "allow"}]}}`,
			`unknown key "permission.bash[0].acton"; did you mean "permission.bash[0].action"?`},
		{"no suggestion", `{"zzzzzz": 1}`, `unknown key "zzzzzz"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.writeProject(tt.content)
			msg := f.loadErr()
			wantContains(t, msg, "config "+f.projectFile()+": ", tt.want)
		})
	}
}

func TestTypeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, want string
	}{
		{"string for number", `{"provider": {"timeout_ms": "abc"}}`, `provider.timeout_ms: must be a number, got "abc"`},
		{"fraction for int", `{"runtime": {"max_steps": 2.5}}`, `runtime.max_steps: must be a whole number, got 2.5`},
		{"bool", `{"compaction": {"auto": "yes"}}`, `compaction.auto: must be true or false, got "yes"`},
		{"list element", `{"mcp": {"servers": {"x": {"command": "c", "args": ["a", 2]}}}}`,
			`mcp.servers.x.args[1]: must be a string, got 2`},
		{"object for string", `{"ui": {"color": {}}}`, `ui.color: must be a string, got an object`},
		{"section not object", `{"runtime": []}`, `runtime: must be an object, got a list`},
		{"map value", `{"permission": {"tools": {"bash": 1}}}`, `permission.tools.bash: must be a string, got 1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.writeUser(tt.content)
			wantContains(t, f.loadErr(), "config "+f.userFile()+": "+tt.want)
		})
	}
}

func TestSyntaxErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		want          []string
	}{
		{"bad value", "{\n  \"provider\": {\n    \"model\": ,\n  }\n}\n", []string{"line 3, column 14: invalid JSON: invalid character ','"}},
		{"missing colon", `{"a" 1}`, []string{"line 1, column 6: invalid JSON"}},
		{"truncated", "{\n  \"runtime\": {", []string{"line 2, column 15: invalid JSON: unexpected end of file"}},
		{"trailing data", "{}\n x", []string{"line 2, column 2: invalid JSON: unexpected data after the top-level object"}},
		{"not an object", `[1, 2]`, []string{"must be a JSON object, got a list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			f.writeProject(tt.content)
			msg := f.loadErr()
			wantContains(t, msg, append(tt.want, "config "+f.projectFile()+": ")...)
		})
	}
}

func TestEmptyFileAndBOMAreFine(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeUser("  \n")
	f.writeProject("\xef\xbb\xbf{\"runtime\": {\"max_steps\": 3}}")
	l := f.mustLoad()
	if l.Config.Runtime.MaxSteps != 3 || len(l.Files) != 2 {
		t.Errorf("max_steps = %d, files = %v", l.Config.Runtime.MaxSteps, l.Files)
	}
}

func TestUnreadableFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := os.MkdirAll(f.projectFile(), 0o755); err != nil { // a directory where the file should be
		t.Fatal(err)
	}
	wantContains(t, f.loadErr(), "config "+f.projectFile()+": cannot read")
}

func TestErrorsFromBothFilesAreReported(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeUser(`{"runtime": {"max_stepz": 1}}`)
	f.writeProject(`{"ui": {"colour": "never"}}`)
	_, err := f.load()
	if got := len(fileErrors(err)); got != 2 {
		t.Fatalf("got %d file errors (%v), want 2", got, err)
	}
}

func TestEnvErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env["CODER_MAX_STEPS"] = "lots"
	_, err := f.load()
	var ee *EnvError
	if !errors.As(err, &ee) || ee.Var != "CODER_MAX_STEPS" {
		t.Fatalf("err = %v, want an EnvError for CODER_MAX_STEPS", err)
	}
	wantContains(t, err.Error(), `CODER_MAX_STEPS: must be a whole number, got "lots"`)
}

func TestValidationNamesTheSource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		project string
		env     map[string]string
		flags   Overrides
		want    func(f *fixture) string
	}{
		{"project file", `{"runtime": {"max_steps": 0}}`, nil, Overrides{},
			func(f *fixture) string {
				return "config " + f.projectFile() + ": runtime.max_steps: must be at least 1, got 0"
			}},
		{"list element in file", `{"permission": {"bash": [{"pattern": "ls", "action": "allow"}, {"pattern": "rm", "action": "nope"}]}}`,
			nil, Overrides{}, func(f *fixture) string {
				return "config " + f.projectFile() + ": permission.bash[1].action: must be one of"
			}},
		{"env", "", map[string]string{"CODER_MAX_STEPS": "0"}, Overrides{},
			func(*fixture) string {
				return "config: runtime.max_steps: must be at least 1, got 0 (set by CODER_MAX_STEPS)"
			}},
		{"flag", "", nil, Overrides{Permissions: "reckless"},
			func(*fixture) string { return `permission.preset: must be one of "strict"` }},
		{"flag source", "", nil, Overrides{Permissions: "reckless"},
			func(*fixture) string { return `(set by --permissions)` }},
		{"CODER_PROVIDER", "", map[string]string{"CODER_PROVIDER": "deepseek"}, Overrides{},
			func(*fixture) string { return `provider.type: must be "openai"` }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			if tt.project != "" {
				f.writeProject(tt.project)
			}
			if tt.env != nil {
				f.env = tt.env
			}
			f.flags = tt.flags
			f.flags.Trust = true
			wantContains(t, f.loadErr(), tt.want(f))
		})
	}
}

func TestSourceOfKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeUser(`{"ui": {"timezone": "UTC"}}`)
	f.env["CODER_MODEL"] = "m"
	f.flags.Mode = "plan"
	l := f.mustLoad()
	for key, want := range map[string]string{
		"ui.timezone":       "config " + f.userFile(),
		"provider.model":    "env CODER_MODEL",
		"agents.default":    "flag --mode",
		"runtime.max_steps": "default",
	} {
		if got := l.Source(key); got != want {
			t.Errorf("Source(%q) = %q, want %q", key, got, want)
		}
		if l.FromFlag(key) != strings.HasPrefix(want, "flag ") {
			t.Errorf("FromFlag(%q) = %v", key, l.FromFlag(key))
		}
	}
}

func TestProviderSwitchDropsEarlierConnection(t *testing.T) {
	t.Parallel()
	t.Run("file", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.writeUser(`{"provider": {"type": "anthropic", "api_key": "sk-ant-user", "model": "claude-x",
			"headers": {"x-api-key": "h"}, "timeout_ms": 5000}}`)
		f.writeProject(`{"provider": {"type": "openai", "base_url": "http://127.0.0.1:8080/v1"}}`)
		p := f.mustLoad().Config.Provider
		if p.APIKey != "" || p.Model != "" || p.Headers != nil || p.TimeoutMS != 5000 {
			t.Errorf("provider = %+v: want key, model and headers dropped, timeout kept", p)
		}
	})
	t.Run("same type keeps", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.writeUser(`{"provider": {"type": "openai", "api_key": "k", "model": "m"}}`)
		f.writeProject(`{"provider": {"type": "openai", "base_url": "https://example.com/v1"}}`)
		if p := f.mustLoad().Config.Provider; p.APIKey != "k" || p.Model != "m" {
			t.Errorf("provider = %+v, want key and model kept", p)
		}
	})
	t.Run("CODER_PROVIDER", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		f.writeUser(`{"provider": {"type": "anthropic", "api_key": "sk-ant-user", "base_url": "https://api.anthropic.com"}}`)
		f.env = map[string]string{"CODER_PROVIDER": "openai", "CODER_BASE_URL": "http://127.0.0.1:8080"}
		p := f.mustLoad().Config.Provider
		if p.APIKey != "" || p.Type != "openai" || p.BaseURL != "http://127.0.0.1:8080" {
			t.Errorf("provider = %+v", p)
		}
	})
}

func TestMCPJSONCompatibility(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFile(t, filepath.Join(f.cwd, ".mcp.json"), `{"mcpServers": {
		"fs": {"type": "stdio", "command": "mcp-fs", "args": ["."], "timeout": 5},
		"gh": {"type": "http", "url": "https://example.com/mcp"}}, "other": true}`)
	f.writeProject(`{"mcp": {"servers": {"fs": {"command": "mcp-fs2"}}}}`)
	l := f.mustLoad()
	s := l.Config.MCP.Servers
	if s["fs"].Command != "mcp-fs2" || s["gh"].URL != "https://example.com/mcp" {
		t.Errorf("servers = %+v", s)
	}
	if len(l.Files) != 2 {
		t.Errorf("files = %v", l.Files)
	}
}

func TestCwdFlagAndWorkspaceRoot(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sub := filepath.Join(f.cwd, "sub")
	writeFile(t, filepath.Join(sub, ".coder", "config.json"), `{"runtime": {"workspace_root": "src", "max_steps": 9}}`)
	f.flags.Cwd = "sub"
	l := f.mustLoad()
	if l.Cwd != sub || l.Config.Runtime.MaxSteps != 9 || l.Config.Runtime.WorkspaceRoot != filepath.Join(sub, "src") {
		t.Errorf("cwd = %q, root = %q, steps = %d", l.Cwd, l.Config.Runtime.WorkspaceRoot, l.Config.Runtime.MaxSteps)
	}
	f.flags.Cwd = "missing"
	wantContains(t, f.loadErr(), "not an existing directory")
}

func TestNoColor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env["NO_COLOR"] = "1"
	if c := f.mustLoad().Config.UI.Color; c != "never" {
		t.Errorf("color = %q, want never", c)
	}
	f.writeProject(`{"ui": {"color": "always"}}`)
	if c := f.mustLoad().Config.UI.Color; c != "always" {
		t.Errorf("explicit color = %q, want always", c)
	}
}
