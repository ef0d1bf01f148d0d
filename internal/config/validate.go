package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/weburl"
)

// The allowed values of enumerated keys, each in one place.
var (
	permissionActions = []string{"allow", "ask", "deny"}
	permissionPresets = []string{"strict", "balanced", "auto-edit", "yolo", "build", "plan"}
	// agentPresets: an agent's mode is its mode field, so no build or plan.
	agentPresets = []string{"strict", "balanced", "auto-edit", "yolo"}
	// looserPresets approve more without asking than the default, balanced.
	looserPresets    = []string{"auto-edit", "yolo"}
	colorModes       = []string{"auto", "always", "never"}
	reasoningEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}
	mcpTypes         = []string{"stdio", "http", "sse"}
	notifyModes      = []string{"auto", "osc", "bell", "off"}
)

// Validate checks every value in c and reports all problems at once, each a
// *FileError naming the key (Load adds the file that set it).
func Validate(c Config) error {
	var errs []error
	for _, p := range validate(c) {
		errs = append(errs, p)
	}
	return errors.Join(errs...)
}

// problems collects validation failures.
type problems []*FileError

func (ps *problems) add(key, format string, args ...any) {
	*ps = append(*ps, &FileError{Key: key, Problem: fmt.Sprintf(format, args...)})
}

func (ps *problems) atLeast(key string, v, lo int) {
	if v < lo {
		ps.add(key, "must be at least %d, got %d", lo, v)
	}
}

func (ps *problems) oneOf(key, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		ps.add(key, "must be one of %s, got %q", quoteList(allowed), v)
	}
}

func validate(c Config) []*FileError {
	var ps problems
	validateProvider(&ps, "provider", c.Provider, true)
	ps.atLeast("runtime.max_steps", c.Runtime.MaxSteps, 1)
	ps.atLeast("runtime.context_token_limit", c.Runtime.ContextTokenLimit, 1000)
	ps.atLeast("runtime.max_response_bytes", c.Runtime.MaxResponseBytes, 64<<10)
	ps.atLeast("safety.command_timeout_ms", c.Safety.CommandTimeoutMS, 1)
	ps.atLeast("safety.output_limit_bytes", c.Safety.OutputLimitBytes, 1)
	if t := c.Compaction.Threshold; t <= 0 || t > 1 {
		ps.add("compaction.threshold", "must be a fraction above 0 and at most 1, got %v", t)
	}
	ps.atLeast("compaction.recent_messages", c.Compaction.RecentMessages, 0)
	ps.atLeast("workflow.max_verify_attempts", c.Workflow.MaxVerifyAttempts, 0)
	validatePermission(&ps, c.Permission)
	validateAgents(&ps, c.Agents)
	ps.atLeast("agents.subagents.max_concurrent", c.Agents.Subagents.MaxConcurrent, 1)
	ps.atLeast("agents.subagents.max_per_turn", c.Agents.Subagents.MaxPerTurn, 0)
	ps.atLeast("agents.subagents.token_budget", c.Agents.Subagents.TokenBudget, 1000)
	ps.atLeast("agents.subagents.max_steps", c.Agents.Subagents.MaxSteps, 1)
	validateMCP(&ps, c.MCP)
	if strings.TrimSpace(c.Storage.Dir) == "" {
		ps.add("storage.dir", "must not be empty")
	}
	ps.oneOf("ui.color", c.UI.Color, colorModes)
	ps.oneOf("notifications", c.Notifications, notifyModes)
	if u := c.Budget.USD; u < 0 || u != u {
		ps.add("budget.usd", "must be 0 (no budget) or a positive number of US dollars, got %v", u)
	}
	validateSandbox(&ps, c.Sandbox)
	validateHooks(&ps, c.Hooks)
	validateLSP(&ps, c.LSP)
	if _, err := loadLocation(c.UI.Timezone); err != nil {
		ps.add("ui.timezone", "unknown time zone %q (use an IANA name such as \"Asia/Shanghai\" or \"UTC\")", c.UI.Timezone)
	}
	return ps
}

// validateProvider checks the main section (top) or one profile.
func validateProvider(ps *problems, key string, p Provider, top bool) {
	if _, ok := catalog.WireNamed(p.Type); p.Type != "" && !ok {
		ps.add(key+".type", "must be %s, got %q", wireList(true), p.Type)
	}
	if p.BaseURL != "" {
		if err := checkHTTPURL(p.BaseURL); err != nil {
			ps.add(key+".base_url", "%v", err)
		}
	}
	ps.atLeast(key+".timeout_ms", p.TimeoutMS, 0)
	if p.CallTimeoutMS != nil {
		ps.atLeast(key+".call_timeout_ms", *p.CallTimeoutMS, 0)
	}
	if p.MaxRetries != nil {
		ps.atLeast(key+".max_retries", *p.MaxRetries, 0)
	}
	ps.atLeast(key+".max_tokens", p.MaxTokens, 0)
	if e := p.Reasoning.Effort; e != "" {
		ps.oneOf(key+".reasoning.effort", e, reasoningEfforts)
	}
	if b := p.Reasoning.BudgetTokens; b != 0 && b < 1024 {
		ps.add(key+".reasoning.budget_tokens", "must be 0 (off) or at least 1024, got %d", b)
	}
	if !top {
		if p.Profile != "" || len(p.Profiles) > 0 {
			ps.add(key, "a profile cannot select or hold other profiles")
		}
		return
	}
	if _, ok := p.Profiles[p.Profile]; p.Profile != "" && !ok {
		ps.add(key+".profile", "no profile %q in provider.profiles (have: %s)", p.Profile, quoteList(slices.Sorted(maps.Keys(p.Profiles))))
	}
	for _, name := range slices.Sorted(maps.Keys(p.Profiles)) {
		validateProvider(ps, key+".profiles."+name, p.Profiles[name], false)
	}
}

func validatePermission(ps *problems, p Permission) {
	ps.oneOf("permission.preset", p.Preset, permissionPresets)
	if p.Default != "" {
		ps.oneOf("permission.default", p.Default, permissionActions)
	}
	for _, tool := range slices.Sorted(maps.Keys(p.Tools)) {
		ps.oneOf("permission.tools."+tool, p.Tools[tool], permissionActions)
	}
	for i, r := range p.Bash {
		key := fmt.Sprintf("permission.bash[%d]", i)
		if strings.TrimSpace(r.Pattern) == "" {
			ps.add(key+".pattern", "must not be empty")
		}
		ps.oneOf(key+".action", r.Action, permissionActions)
	}
	for i, cmd := range p.CommandAllowlist {
		if strings.TrimSpace(cmd) == "" {
			ps.add(fmt.Sprintf("permission.command_allowlist[%d]", i), "must not be empty")
		}
	}
}

func validateAgents(ps *problems, a Agents) {
	if strings.TrimSpace(a.Default) == "" {
		ps.add("agents.default", "must name an agent (\"build\" or \"plan\")")
	}
	seen := map[string]bool{}
	for i, d := range a.Definitions {
		key := fmt.Sprintf("agents.definitions[%d]", i)
		switch {
		case strings.TrimSpace(d.Name) == "":
			ps.add(key+".name", "must not be empty")
		case seen[d.Name]:
			ps.add(key+".name", "duplicate agent name %q", d.Name)
		}
		seen[d.Name] = true
		if d.PermissionPreset != "" {
			ps.oneOf(key+".permission_preset", d.PermissionPreset, agentPresets)
		}
		ps.atLeast(key+".max_steps", d.MaxSteps, 0)
	}
}

func validateMCP(ps *problems, m MCP) {
	for _, name := range slices.Sorted(maps.Keys(m.Servers)) {
		s, key := m.Servers[name], "mcp.servers."+name
		switch {
		case (s.Command == "") == (s.URL == ""):
			ps.add(key, `needs exactly one of "command" (a stdio server) or "url" (an HTTP server)`)
		case s.URL != "":
			if err := checkHTTPURL(s.URL); err != nil {
				ps.add(key+".url", "%v", err)
			}
		}
		if s.Type != "" {
			ps.oneOf(key+".type", s.Type, mcpTypes)
		}
	}
}

// checkHTTPURL accepts an absolute http or https URL.
func checkHTTPURL(s string) error {
	u, err := weburl.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("must be an http:// or https:// URL, got %q", s)
	}
	return nil
}

// wireList names the provider types ("a", "b" or "c"), each with what it
// is when about is set: the one list is the provider table's.
func wireList(about bool) string {
	ws := catalog.Wires()
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = fmt.Sprintf("%q", w.Name)
		if about && w.About != "" {
			parts[i] += " (" + w.About + ")"
		}
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}
