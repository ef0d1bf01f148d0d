package permission

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/shell"
	"github.com/coder-agent/coder/internal/tools"
)

const dangerSummary = `Danger checks ask every time, whatever the rules say ("always" never skips them):
  recursive deletes of /, ~, .., the workspace or paths computed at run time; sudo, doas, su;
  mkfs and disk wipes; dd of=; chmod/chown -R on broad paths; fork bombs; downloads piped
  into an interpreter; git push --force, reset --hard, clean -f, checkout -- ., restore;
  shutdown, reboot, kill -1; writes to block devices; redirections over existing files;
  writes outside the workspace; reads of secrets files; command names computed at run time.
`

// Matrix renders the policy of mode for /permissions: the action per tool,
// the bash rules in evaluation order, the allowlist and the danger checks.
func (e *Engine) Matrix(mode agent.Mode) string {
	rs, guard := e.ruleset(mode)
	e.mu.RLock()
	defer e.mu.RUnlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Permissions: preset %s, mode %s (the last matching rule wins)\n\n", e.active(), mode)
	e.toolTable(&b, rs, guard)
	bashTable(&b, rs)
	if mode == agent.Plan {
		b.WriteString("  Plan mode is also a floor: later rules can tighten it, not loosen it.\n")
	}
	e.allowlist(&b)
	fmt.Fprintf(&b, "\nRead-only commands: %s\n\n", strings.Join(shell.ReadOnlyNames(), " "))
	b.WriteString(dangerSummary)
	return b.String()
}

func (e *Engine) toolTable(b *strings.Builder, rs, guard []compiledRule) {
	// The known tools in the order they were registered, then the other
	// tools the configuration names.
	var tools []string
	for _, k := range e.known {
		tools = append(tools, k.name)
	}
	n := len(tools)
	for t := range e.opts.Permission.Tools {
		if t != "*" && !slices.Contains(tools, t) {
			tools = append(tools, t)
		}
	}
	slices.Sort(tools[n:])
	fmt.Fprintf(b, "  %-16s %-6s %s\n", "TOOL", "ACTION", "DECIDED BY")
	row := func(label, tool string) {
		v := judge(tool, "", rs, guard, func(r compiledRule) bool { return r.anyPattern() })
		note := describeRule(v.rule.Rule)
		if n := patternRules(rs, tool); n > 0 && tool != "" {
			note += fmt.Sprintf("; %d pattern rules", n)
		}
		fmt.Fprintf(b, "  %-16s %-6s %s\n", label, v.action, note)
	}
	for _, t := range tools {
		row(t, t)
	}
	row("other tools", "")
}

// patternRules counts the rules of tool that apply only to some calls.
func patternRules(rs []compiledRule, tool string) int {
	n := 0
	for _, r := range rs {
		if r.Tool == tool && !r.anyPattern() {
			n++
		}
	}
	return n
}

func bashTable(b *strings.Builder, rs []compiledRule) {
	b.WriteString("\nBash rules (each simple command of a line is judged; the strictest wins)\n")
	fmt.Fprintf(b, "  %-6s %-28s %s\n", "ACTION", "PATTERN", "SOURCE")
	for _, r := range rs {
		if r.Tool != tools.Bash || r.Exact {
			continue
		}
		pattern := r.Pattern
		if pattern == "" {
			pattern = "*"
		}
		fmt.Fprintf(b, "  %-6s %-28s %s\n", r.Action, pattern, r.Source)
	}
}

func (e *Engine) allowlist(b *strings.Builder) {
	b.WriteString("\nAllowed exactly (command allowlist and \"always\" this session)\n")
	n := 0
	for _, r := range e.userRules() {
		if r.Exact {
			fmt.Fprintf(b, "  %-6s %s\n", r.Tool, r.Pattern)
			n++
		}
	}
	if n == 0 {
		b.WriteString("  (none)\n")
	}
}
