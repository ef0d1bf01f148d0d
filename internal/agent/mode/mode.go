// Package mode is an agent's mode and the rules that pick one, apart from
// the agents themselves (package agent, which holds their prompts and
// tools and aliases these names) so that `coder sandbox`, which needs only
// the mode a session starts in, can run before the rest of coder
// initialises (sandbox/workspace).
package mode

import (
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/sandbox"
)

// Mode is how an agent works: build changes code and runs commands; plan
// analyses and plans and changes nothing. The system prompt's mode section,
// the policy's plan floor, the sandbox profile, auto-verify and the todo
// rules follow an agent's mode, never its name.
type Mode string

const (
	Build Mode = "build"
	Plan  Mode = "plan"
)

// Parse checks a mode name ("" is build).
func Parse(s string) (Mode, error) {
	switch Mode(s) {
	case "", Build:
		return Build, nil
	case Plan:
		return Plan, nil
	}
	return "", fmt.Errorf("mode %q is not build or plan", s)
}

// Builtin is the mode of the built-in agent of that name, if it is one.
func Builtin(name string) (Mode, bool) {
	switch Mode(name) {
	case Build, Plan:
		return Mode(name), true
	}
	return "", false
}

// Access is what the commands of an agent in mode m may change: the one
// typed value the call carries to the sandbox's backend (tools.Call.Sandbox).
func (m Mode) Access() sandbox.Policy {
	if m == Plan {
		return sandbox.ReadOnly
	}
	return sandbox.WorkspaceWrite
}

// OfPreset is the mode a permission preset named after one selects (build,
// plan, in any case and spacing), "" for any other preset.
func OfPreset(preset string) Mode {
	m, _ := Builtin(strings.ToLower(strings.TrimSpace(preset)))
	return m
}

// StartAgent names the agent a session starts with: agents.default, unless
// permission.preset names a mode.
func StartAgent(defaultAgent, preset string) string {
	if m := OfPreset(preset); m != "" {
		return string(m)
	}
	return defaultAgent
}
