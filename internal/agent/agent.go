// Package agent defines agents (modes) as data: a prompt, the tools the agent
// may use and the permission preset it implies. build and plan are built in;
// more come from config.
package agent

import (
	_ "embed"
	"fmt"
	"slices"
)

// Agent is one mode of working.
type Agent struct {
	Name string
	// Prompt is the agent's part of the system prompt.
	Prompt string
	// Tools lists the enabled tools; nil means every registered tool.
	Tools []string
	// Disabled lists tools switched off even when Tools is nil.
	Disabled []string
	// Preset is the permission preset the agent implies ("" = keep the current one).
	Preset string
	// MaxSteps overrides runtime.max_steps when > 0.
	MaxSteps int
}

// Enabled reports whether the agent may use tool name.
func (a Agent) Enabled(name string) bool {
	if slices.Contains(a.Disabled, name) {
		return false
	}
	return a.Tools == nil || slices.Contains(a.Tools, name)
}

//go:embed prompts/build.md
var buildPrompt string

//go:embed prompts/plan.md
var planPrompt string

// Build delivers changes: every tool but todowrite (seed 02-orchestrator §5).
func Build() Agent {
	return Agent{Name: "build", Prompt: buildPrompt, Disabled: []string{"todowrite", "question", "exit_plan_mode"}}
}

// Plan analyses and plans and changes nothing.
func Plan() Agent {
	return Agent{
		Name:   "plan",
		Prompt: planPrompt,
		Tools: []string{"read", "list", "glob", "grep", "bash", "fetch", "todoread", "todowrite",
			"question", "skill", "exit_plan_mode"},
		Preset: "plan",
	}
}

// Lookup returns a built-in agent by name.
func Lookup(name string) (Agent, bool) {
	switch name {
	case "build":
		return Build(), true
	case "plan":
		return Plan(), true
	}
	return Agent{}, false
}

// Definition is a custom agent as configured (agents.definitions).
type Definition struct {
	Name, Mode, Prompt, Preset string
	Tools                      []string
	MaxSteps                   int
}

// Catalog is the agents one can switch to: the built-in ones and those
// defined in config, which may not reuse a built-in name.
type Catalog struct {
	custom map[string]Agent
	modes  map[string]string
}

// NewCatalog builds the custom agents on their mode's built-in agent: a
// definition's prompt, tools, preset and step limit replace the base's.
func NewCatalog(defs []Definition) (*Catalog, error) {
	c := &Catalog{custom: map[string]Agent{}, modes: map[string]string{}}
	for _, d := range defs {
		if _, builtin := Lookup(d.Name); builtin || d.Name == "" {
			return nil, fmt.Errorf("agents.definitions: %q is not a usable name for a custom agent", d.Name)
		}
		base, ok := Lookup(orDefault(d.Mode, "build"))
		if !ok {
			return nil, fmt.Errorf("agents.definitions: agent %q: mode %q is not build or plan", d.Name, d.Mode)
		}
		base.Name = d.Name
		if d.Prompt != "" {
			base.Prompt = d.Prompt
		}
		if d.Tools != nil {
			base.Tools, base.Disabled = d.Tools, nil
		}
		if d.Preset != "" {
			base.Preset = d.Preset
		}
		base.MaxSteps = d.MaxSteps
		c.custom[d.Name] = base
		c.modes[d.Name] = orDefault(d.Mode, "build")
	}
	return c, nil
}

// Lookup finds an agent by name, custom ones first.
func (c *Catalog) Lookup(name string) (Agent, bool) {
	if c != nil {
		if a, ok := c.custom[name]; ok {
			return a, true
		}
	}
	return Lookup(name)
}

// Modes maps each custom agent to its mode, for the permission policy.
func (c *Catalog) Modes() map[string]string { return c.modes }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
