// Package agent defines agents (modes) as data: a prompt, the tools the agent
// may use and the permission preset it implies. build and plan are built in;
// more come from config.
package agent

import (
	_ "embed"
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
