package permission

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/tools"
)

// PolicyOptions configures the rule-based policy.
type PolicyOptions struct {
	// Permission is the config section: preset, default, per-tool actions,
	// bash rules and the allowlist written by "always".
	Permission config.Permission
}

// Engine is the rule-based Policy: defaults → config default → preset →
// agent (plan) → user rules → allowlist, the last matching rule winning.
// In plan mode the plan rules are also a floor: user rules can tighten
// them but not loosen them, because plan mode must not change anything.
type Engine struct {
	mu     sync.RWMutex
	opts   PolicyOptions
	preset string // the session's: config, --permissions or /permissions
	// agentPreset is the active agent's preset (agents.definitions
	// permission_preset); while set it is the one in force.
	agentPreset string
	runtime     Ruleset     // allow rules added by AllowExact
	known       []knownTool // the tools whose facts the presets read (UseTools)
	// The compiled rules, derived on the first decision after a change
	// (stale): a run that never asks the policy never pays for them.
	stale bool
	build []compiledRule
	plan  []compiledRule
	guard []compiledRule // plan rules alone
}

var _ Policy = (*Engine)(nil)

// knownTool is a tool's name and facts, as the presets and /permissions
// read them.
type knownTool struct {
	name  string
	facts tools.Facts
}

// ToolAware is a policy whose rules are derived from the tools' facts: it
// is told of the registered tools (the orchestrator does, at start).
type ToolAware interface {
	UseTools(ts []tools.Tool)
}

var _ ToolAware = (*Engine)(nil)

// UseTools adds the facts of the tools not known yet (a subagent's subset
// adds nothing) and derives the presets' rules again: a tool that changes
// nothing is allowed, one that edits is trusted (and denied in plan mode),
// the others are asked.
func (e *Engine) UseTools(ts []tools.Tool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	added := false
	for _, t := range ts {
		if !slices.ContainsFunc(e.known, func(k knownTool) bool { return k.name == t.Name() }) {
			e.known = append(e.known, knownTool{name: t.Name(), facts: t.Facts()})
			added = true
		}
	}
	if added {
		_ = e.compile() // the rules were valid when the engine was built
	}
}

func (e *Engine) knows(name string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return slices.ContainsFunc(e.known, func(k knownTool) bool { return k.name == name })
}

// NewPolicy builds the policy from config. The preset may be "build" or
// "plan" (ParsePreset tells the caller which mode that selects).
func NewPolicy(opts PolicyOptions) (*Engine, error) {
	preset, _, err := ParsePreset(opts.Permission.Preset)
	if err != nil {
		return nil, err
	}
	if opts.Permission.Default != "" && !validAction(opts.Permission.Default) {
		return nil, fmt.Errorf("permission.default: %q is not allow, ask or deny", opts.Permission.Default)
	}
	e := &Engine{opts: opts, preset: preset}
	if err := e.compile(); err != nil {
		return nil, err
	}
	return e, nil
}

// SetPreset switches the session's preset at run time (/permissions
// PRESET), keeping the rules added by AllowExact. A person's explicit
// choice wins over the active agent's preset until the next agent switch.
// It returns the mode to switch to when the name was "build" or "plan".
func (e *Engine) SetPreset(name string) (agent.Mode, error) {
	preset, mode, err := ParsePreset(name)
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.preset, e.agentPreset = preset, ""
	return mode, e.compile()
}

// AgentPresets is a policy an agent can bring its own preset to.
type AgentPresets interface {
	// UseAgentPreset puts an agent's preset in force in place of the
	// session's; "" gives the session's back.
	UseAgentPreset(name string) error
}

var _ AgentPresets = (*Engine)(nil)

// UseAgentPreset implements AgentPresets. The name is a preset proper: an
// agent's mode is its own, so "build" and "plan" are refused here.
func (e *Engine) UseAgentPreset(name string) error {
	preset := ""
	if name != "" {
		p, mode, err := ParsePreset(name)
		if err != nil {
			return err
		}
		if mode != "" {
			return fmt.Errorf("permission preset %q names a mode; an agent's mode is set by its mode field", name)
		}
		preset = p
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.agentPreset = preset
	return e.compile()
}

// Presets are the names SetPreset takes: the presets, then the modes.
func (e *Engine) Presets() []string {
	return append(slices.Clone(Presets), string(agent.Build), string(agent.Plan))
}

// Preset is the name of the preset in force.
func (e *Engine) Preset() string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.active()
}

// active is the preset in force: the agent's, else the session's. The
// caller holds e.mu.
func (e *Engine) active() string {
	if e.agentPreset != "" {
		return e.agentPreset
	}
	return e.preset
}

// AllowExact allows this exact subject of tool from now on (the reply
// "always"). For bash, subject is the command line; an empty subject
// allows every call of the tool. Danger reasons still ask: they are not
// the policy's.
func (e *Engine) AllowExact(tool, subject string) {
	r := Rule{Tool: tool, Pattern: subject, Action: Allow, Exact: true, Source: "approved with \"always\""}
	if strings.TrimSpace(subject) == "" {
		r.Pattern, r.Exact = "*", false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.runtime = append(e.runtime, r)
	_ = e.compile() // the preset was valid when the engine was built
}

// rules returns the ruleset in evaluation order for mode.
func (e *Engine) rules(mode agent.Mode) Ruleset {
	p := e.opts.Permission
	rs := defaultRules()
	if p.Default != "" {
		rs = append(rs, Rule{Tool: "*", Pattern: "*", Action: Action(p.Default), Source: "config permission.default"})
	}
	rs = append(rs, presetRules(e.active(), e.known)...)
	if mode == agent.Plan {
		rs = append(rs, planRules(e.known)...)
	}
	return append(rs, e.userRules()...)
}

// userRules: config per-tool actions ("*" first so named tools win), bash
// rules in file order, then the allowlist and this session's approvals.
func (e *Engine) userRules() Ruleset {
	p := e.opts.Permission
	var rs Ruleset
	names := make([]string, 0, len(p.Tools))
	for t := range p.Tools {
		names = append(names, t)
	}
	slices.SortFunc(names, func(a, b string) int {
		if (a == "*") != (b == "*") {
			if a == "*" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, t := range names {
		rs = append(rs, Rule{Tool: t, Pattern: "*", Action: Action(p.Tools[t]), Source: "config permission.tools." + t})
	}
	for i, b := range p.Bash {
		rs = append(rs, Rule{Tool: tools.Bash, Pattern: b.Pattern, Action: Action(b.Action),
			Source: fmt.Sprintf("config permission.bash[%d]", i)})
	}
	for _, cmd := range p.CommandAllowlist {
		rs = append(rs, Rule{Tool: tools.Bash, Pattern: cmd, Action: Allow, Exact: true, Source: "command allowlist"})
	}
	return append(rs, e.runtime...)
}

// compile checks the user's rules and marks the compiled rulesets stale;
// ruleset derives them again when a decision needs them. The caller holds
// e.mu for writing (or owns e alone).
func (e *Engine) compile() error {
	for _, r := range e.userRules() {
		if !validAction(string(r.Action)) {
			return fmt.Errorf("%s: %q is not allow, ask or deny", r.Source, r.Action)
		}
	}
	e.stale = true
	return nil
}

// derive compiles the rulesets of both modes and the plan floor from the
// current preset, tools and user rules. The caller holds e.mu for writing.
func (e *Engine) derive() {
	e.build = compileAll(e.rules(agent.Build))
	e.plan = compileAll(e.rules(agent.Plan))
	e.guard = compileAll(planRules(e.known))
	e.stale = false
}

func compileAll(rs Ruleset) []compiledRule {
	out := make([]compiledRule, len(rs))
	for i, r := range rs {
		out[i] = compileRule(r)
	}
	return out
}

func validAction(a string) bool {
	return a == string(Allow) || a == string(Ask) || a == string(Deny)
}

// ruleset is the compiled rules of mode m and, in plan mode, the floor.
// Decisions share the read lock (subagents decide concurrently); only the
// first one after a change takes the write lock to derive the rules.
func (e *Engine) ruleset(m agent.Mode) (rs, guard []compiledRule) {
	e.mu.RLock()
	if !e.stale {
		defer e.mu.RUnlock()
		return e.pick(m)
	}
	e.mu.RUnlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stale {
		e.derive()
	}
	return e.pick(m)
}

// pick is mode m's compiled rules and floor; the caller holds e.mu.
func (e *Engine) pick(m agent.Mode) (rs, guard []compiledRule) {
	if m == agent.Plan {
		return e.plan, e.guard
	}
	return e.build, nil
}

// Decide implements Policy.
func (e *Engine) Decide(c *tools.Call, m agent.Mode) Decision {
	// The rules are derived from the facts of the tools the engine knows; a
	// call's own tool is always one of them, so plan mode's floor never
	// depends on a front end having told the engine of every tool first.
	if c.Tool != nil && !e.knows(c.Tool.Name()) {
		e.UseTools([]tools.Tool{c.Tool})
	}
	rs, guard := e.ruleset(m)
	var vs []verdict
	switch {
	case c.Name == tools.Bash:
		vs = e.bashVerdicts(c.Shell, rs, guard)
	case c.Tool != nil && c.Tool.Facts().Paths:
		vs = e.pathVerdicts(c, rs, guard)
	default:
		v := judge(c.Name, c.Subject, rs, guard, func(r compiledRule) bool { return r.matchSubject(c.Subject) })
		// A tool that declares itself read-only (an MCP server's
		// readOnlyHint) is treated like the built-in read-only tools when
		// only the catch-all default matched; explicit rules still win.
		if c.ReadOnly && v.rule.Source == defaultsSource && !v.danger {
			v.action, v.rule.Source = Allow, "read-only tool"
		}
		vs = []verdict{v}
	}
	return worst(c.Name, vs)
}

// verdict is the decision on one part of a call (one simple command, one path).
type verdict struct {
	action  Action
	rule    compiledRule
	subject string
	danger  bool // plan mode's floor asked: only y/n, non-interactive denies
}

// judge evaluates the ruleset and, in plan mode, the plan floor.
func judge(tool, subject string, rs, guard []compiledRule, match func(compiledRule) bool) verdict {
	v := verdict{action: Ask, subject: subject, rule: compiledRule{Rule: Rule{Source: "no rule matched"}}}
	if r, ok := last(rs, tool, match); ok {
		v.action, v.rule = r.Action, r
	}
	if g, ok := last(guard, tool, match); ok {
		if stricter(g.Action, v.action) {
			v.action, v.rule = g.Action, g
		}
		v.danger = g.Action == Ask && v.action == Ask
	}
	return v
}

// worst combines verdicts: deny > ask > allow; the first of the worst
// names the reason.
func worst(tool string, vs []verdict) Decision {
	w := vs[0]
	danger := false
	for _, v := range vs {
		if stricter(v.action, w.action) {
			w = v
		}
	}
	for _, v := range vs {
		danger = danger || (v.action == w.action && v.danger)
	}
	return Decision{Action: w.action, Reason: reasonFor(tool, w), Danger: danger && w.action == Ask}
}

func reasonFor(tool string, v verdict) string {
	verb := map[Action]string{Allow: "is allowed", Ask: "requires approval", Deny: "is denied"}[v.action]
	head := tool
	if v.subject != "" {
		head = fmt.Sprintf("%s: %q", tool, v.subject)
	}
	return fmt.Sprintf("%s %s (%s)", head, verb, describeRule(v.rule.Rule))
}

// describeRule names a rule for a person: its source and, when it is not
// a catch-all, its pattern.
func describeRule(r Rule) string {
	switch {
	case r.Pattern == ReadOnlyPattern:
		return r.Source + ": read-only command"
	case r.Source == planSource && r.Tool == tools.Bash && r.Action == Ask:
		return "plan mode: only read-only commands run without approval"
	case r.anyPattern() || r.Exact:
		return r.Source
	}
	return fmt.Sprintf("%s: %q", r.Source, r.Pattern)
}
