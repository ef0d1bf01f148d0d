// Package agent defines agents (modes) as data: a prompt, the tools the agent
// may use and the permission preset it implies. build and plan are built in;
// more come from config.
package agent

import (
	_ "embed"
	"fmt"
	"slices"

	"github.com/coder-agent/coder/internal/agent/mode"
	"github.com/coder-agent/coder/internal/tools"
)

// Mode is how an agent works (package mode, where the rules that pick one
// live apart from the agents).
type Mode = mode.Mode

const (
	Build = mode.Build
	Plan  = mode.Plan
)

// ParseMode checks a mode name ("" is build).
func ParseMode(s string) (Mode, error) { return mode.Parse(s) }

// Agent is one way of working: a named mode with its prompt and tools.
type Agent struct {
	Name string
	Mode Mode
	// Prompt is the agent's part of the system prompt.
	Prompt string
	// Tools lists the enabled tools; nil means the tools of the agent's
	// mode, as their facts say (tools.Facts.Plan, PlanOnly).
	Tools []string
	// Disabled lists tools switched off even when Tools is nil.
	Disabled []string
	// Preset is the permission preset in force while the agent is active
	// (strict, balanced, auto-edit or yolo); "" keeps the session's. The
	// built-in agents have none: plan mode's rules follow its Mode.
	Preset string
	// MaxSteps overrides runtime.max_steps when > 0.
	MaxSteps int
}

// Enabled reports whether the agent may use tool name, whose facts are f:
// those its Tools name, else those of its mode — in plan mode the tools
// whose facts say plan mode has them, in build mode all but plan's own.
func (a Agent) Enabled(name string, f tools.Facts) bool {
	switch {
	case slices.Contains(a.Disabled, name):
		return false
	case a.Tools != nil:
		return slices.Contains(a.Tools, name)
	case a.Mode == Plan:
		return f.Plan
	}
	return !f.PlanOnly
}

//go:embed prompts/build.md
var buildPrompt string

//go:embed prompts/plan.md
var planPrompt string

// BuildAgent delivers changes: every tool but plan mode's own (todowrite,
// which build leaves to plan mode — the todos stay visible as a reminder —,
// question and exit_plan_mode: tools.Facts.PlanOnly).
func BuildAgent() Agent {
	return Agent{Name: string(Build), Mode: Build, Prompt: buildPrompt}
}

// PlanAgent analyses and plans and changes nothing: it has the tools whose
// facts say plan mode has them (tools.Facts.Plan).
func PlanAgent() Agent {
	return Agent{Name: string(Plan), Mode: Plan, Prompt: planPrompt}
}

// ForMode is the built-in agent of mode m.
func ForMode(m Mode) Agent {
	if m == Plan {
		return PlanAgent()
	}
	return BuildAgent()
}

// Lookup returns a built-in agent by name.
func Lookup(name string) (Agent, bool) {
	m, ok := mode.Builtin(name)
	if !ok {
		return Agent{}, false
	}
	return ForMode(m), true
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
}

// NewCatalog builds the custom agents on their mode's built-in agent: a
// definition's prompt, tools, preset and step limit replace the base's.
func NewCatalog(defs []Definition) (*Catalog, error) {
	c := &Catalog{custom: map[string]Agent{}}
	for _, d := range defs {
		if _, builtin := Lookup(d.Name); builtin || d.Name == "" {
			return nil, fmt.Errorf("agents.definitions: %q is not a usable name for a custom agent", d.Name)
		}
		m, err := ParseMode(d.Mode)
		if err != nil {
			return nil, fmt.Errorf("agents.definitions: agent %q: %v", d.Name, err)
		}
		base := ForMode(m)
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

// Names lists every agent's name, built-in ones first.
func (c *Catalog) Names() []string {
	names := []string{string(Build), string(Plan)}
	var custom []string
	if c != nil {
		for n := range c.custom {
			custom = append(custom, n)
		}
	}
	slices.Sort(custom)
	return append(names, custom...)
}
