package config

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultsAreValid(t *testing.T) {
	t.Parallel()
	if err := Validate(Defaults()); err != nil {
		t.Fatalf("Validate(Defaults()) = %v", err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mutate  func(c *Config)
		key     string // "" = valid
		problem string
	}{
		{"openai type", func(c *Config) { c.Provider.Type = "openai" }, "", ""},
		{"bad type", func(c *Config) { c.Provider.Type = "gemini" }, "provider.type", `got "gemini"`},
		{"bad base url", func(c *Config) { c.Provider.BaseURL = "localhost:8080" }, "provider.base_url", "http:// or https://"},
		{"negative timeout", func(c *Config) { c.Provider.TimeoutMS = -1 }, "provider.timeout_ms", "at least 0"},
		{"negative call timeout", func(c *Config) { c.Provider.CallTimeoutMS = intPtr(-1) }, "provider.call_timeout_ms", "at least 0"},
		{"negative retries", func(c *Config) { c.Provider.MaxRetries = intPtr(-1) }, "provider.max_retries", "at least 0"},
		{"openai-responses type", func(c *Config) { c.Provider.Type = "openai-responses" }, "", ""},
		{"effort", func(c *Config) { c.Provider.Reasoning.Effort = "maximal" }, "provider.reasoning.effort", `got "maximal"`},
		{"effort none", func(c *Config) { c.Provider.Reasoning.Effort = "none" }, "", ""},
		{"effort xhigh", func(c *Config) { c.Provider.Reasoning.Effort = "xhigh" }, "", ""},
		{"effort max", func(c *Config) { c.Provider.Reasoning.Effort = "max" }, "", ""},
		{"budget", func(c *Config) { c.Provider.Reasoning.BudgetTokens = 10 }, "provider.reasoning.budget_tokens", "1024"},
		{"missing profile", func(c *Config) { c.Provider.Profile = "x" }, "provider.profile", `no profile "x"`},
		{"bad profile", func(c *Config) {
			c.Provider.Profiles = map[string]Provider{"p": {Type: "grok"}}
		}, "provider.profiles.p.type", `got "grok"`},
		{"nested profile", func(c *Config) {
			c.Provider.Profiles = map[string]Provider{"p": {Profile: "q"}}
		}, "provider.profiles.p", "cannot"},
		{"max_steps", func(c *Config) { c.Runtime.MaxSteps = 0 }, "runtime.max_steps", "at least 1, got 0"},
		{"context limit", func(c *Config) { c.Runtime.ContextTokenLimit = 999 }, "runtime.context_token_limit", "at least 1000"},
		{"command timeout", func(c *Config) { c.Safety.CommandTimeoutMS = 0 }, "safety.command_timeout_ms", "at least 1"},
		{"output limit", func(c *Config) { c.Safety.OutputLimitBytes = -5 }, "safety.output_limit_bytes", "at least 1"},
		{"threshold zero", func(c *Config) { c.Compaction.Threshold = 0 }, "compaction.threshold", "above 0"},
		{"threshold above one", func(c *Config) { c.Compaction.Threshold = 1.5 }, "compaction.threshold", "at most 1"},
		{"threshold one", func(c *Config) { c.Compaction.Threshold = 1 }, "", ""},
		{"recent messages", func(c *Config) { c.Compaction.RecentMessages = -1 }, "compaction.recent_messages", "at least 0"},
		{"verify attempts", func(c *Config) { c.Workflow.MaxVerifyAttempts = -1 }, "workflow.max_verify_attempts", "at least 0"},
		{"preset", func(c *Config) { c.Permission.Preset = "lax" }, "permission.preset", `got "lax"`},
		{"preset plan", func(c *Config) { c.Permission.Preset = "plan" }, "", ""},
		{"default action", func(c *Config) { c.Permission.Default = "maybe" }, "permission.default", `"allow", "ask", "deny"`},
		{"tool action", func(c *Config) { c.Permission.Tools = map[string]string{"edit": "yes"} }, "permission.tools.edit", `got "yes"`},
		{"bash action", func(c *Config) { c.Permission.Bash = []BashRule{{Pattern: "rm *", Action: "no"}} }, "permission.bash[0].action", `got "no"`},
		{"bash pattern", func(c *Config) { c.Permission.Bash = []BashRule{{Action: "deny"}} }, "permission.bash[0].pattern", "empty"},
		{"agents default", func(c *Config) { c.Agents.Default = "" }, "agents.default", "must name an agent"},
		{"agent name", func(c *Config) { c.Agents.Definitions = []AgentDefinition{{}} }, "agents.definitions[0].name", "empty"},
		{"agent duplicate", func(c *Config) {
			c.Agents.Definitions = []AgentDefinition{{Name: "a"}, {Name: "a"}}
		}, "agents.definitions[1].name", "duplicate"},
		{"agent preset", func(c *Config) {
			c.Agents.Definitions = []AgentDefinition{{Name: "a", PermissionPreset: "x"}}
		}, "agents.definitions[0].permission_preset", `got "x"`},
		{"agent preset names a mode", func(c *Config) {
			c.Agents.Definitions = []AgentDefinition{{Name: "a", PermissionPreset: "plan"}}
		}, "agents.definitions[0].permission_preset", `got "plan"`},
		{"agent preset yolo", func(c *Config) {
			c.Agents.Definitions = []AgentDefinition{{Name: "a", PermissionPreset: "yolo"}}
		}, "", ""},
		{"color", func(c *Config) { c.UI.Color = "rainbow" }, "ui.color", `got "rainbow"`},
		{"timezone", func(c *Config) { c.UI.Timezone = "Mars/Olympus" }, "ui.timezone", `"Mars/Olympus"`},
		{"timezone UTC", func(c *Config) { c.UI.Timezone = "UTC" }, "", ""},
		{"mcp neither", func(c *Config) { c.MCP.Servers = map[string]MCPServer{"s": {}} }, "mcp.servers.s", "exactly one"},
		{"mcp both", func(c *Config) {
			c.MCP.Servers = map[string]MCPServer{"s": {Command: "x", URL: "http://h/mcp"}}
		}, "mcp.servers.s", "exactly one"},
		{"mcp url", func(c *Config) { c.MCP.Servers = map[string]MCPServer{"s": {URL: "ftp://h"}} }, "mcp.servers.s.url", "http"},
		{"mcp type", func(c *Config) { c.MCP.Servers = map[string]MCPServer{"s": {Command: "x", Type: "ws"}} }, "mcp.servers.s.type", `got "ws"`},
		{"storage dir", func(c *Config) { c.Storage.Dir = " " }, "storage.dir", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Defaults()
			tt.mutate(&c)
			err := Validate(c)
			if tt.key == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			fes := fileErrors(err)
			if len(fes) != 1 || fes[0].Key != tt.key || !strings.Contains(fes[0].Problem, tt.problem) {
				t.Fatalf("Validate = %v\nwant one error at %s containing %q", err, tt.key, tt.problem)
			}
		})
	}
}

func TestValidateReportsAllProblems(t *testing.T) {
	t.Parallel()
	c := Defaults()
	c.Runtime.MaxSteps, c.UI.Color = 0, "x"
	if n := len(fileErrors(Validate(c))); n != 2 {
		t.Errorf("got %d problems, want 2", n)
	}
}

func TestLocation(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		tz     string
		offset int
	}{
		{"Asia/Shanghai", 8 * 3600},
		{"UTC", 0},
		{"", 0},
		{"Mars/Olympus", 8 * 3600}, // Validate rejects it; Location still never fails
	}
	for _, tt := range tests {
		if _, off := at.In(Location(UI{Timezone: tt.tz})).Zone(); off != tt.offset {
			t.Errorf("Location(%q) offset = %d, want %d", tt.tz, off, tt.offset)
		}
	}
	if Location(Defaults().UI) == nil {
		t.Error("Location(defaults) = nil")
	}
}
