package tools

import "github.com/coder-agent/coder/internal/chat"

// Facts are what the rest of coder knows of a tool, declared once on the
// tool (Tool.Facts). Every list of tools is derived from them: the
// permission presets and /permissions' rows, the tools of plan and build
// mode, the subagents' tools, the Claude Code names hook matchers may use,
// and how front ends show a call (its Kind).
type Facts struct {
	// Kind says what the tool's calls do; read, search, fetch and think
	// calls are read-only (they run concurrently) unless Prepare says
	// otherwise.
	Kind chat.ToolKind
	// Effect says what the calls may change, which decides how the
	// permission presets and plan mode treat them.
	Effect Effect
	// Paths: the arguments name workspace paths, which the policy's rules
	// match (the file tools).
	Paths bool
	// Plan: plan mode enables the tool. PlanOnly: build mode leaves it to
	// plan mode (the tools of planning itself).
	Plan, PlanOnly bool
	// Explore and General: the explore subagents (which only look) and the
	// general ones are given the tool. No subagent gets the task tool.
	Explore, General bool
	// Claude are Claude Code's names for the tool, which hook matchers
	// written for Claude Code use ("Edit|Write").
	Claude []string
}

// Effect is what a tool's calls may change.
type Effect int

const (
	// EffectUndeclared is a tool that declared nothing: no preset allows
	// it, so each call is asked.
	EffectUndeclared Effect = iota
	// EffectNone: nothing in the workspace (the session's todos, a
	// question, reading): every preset allows it.
	EffectNone
	// EffectEdit: the files its arguments name. The trusting presets allow
	// it; plan mode denies it.
	EffectEdit
	// EffectDelegate: whatever the subagents it starts do, edits
	// included; treated as an edit.
	EffectDelegate
	// EffectOpen: anything — commands, the network, another program's
	// tools. Asked, under the tool's own rules (bash's command patterns,
	// fetch's hosts).
	EffectOpen
)

// Changes reports whether calls may change the workspace as an edit does
// (edits and delegation): trusted presets allow them, plan mode denies
// them.
func (e Effect) Changes() bool { return e == EffectEdit || e == EffectDelegate }

// readOnly: calls of these kinds change nothing unless the tool says otherwise.
func readOnly(k chat.ToolKind) bool {
	return k == chat.ToolRead || k == chat.ToolSearch || k == chat.ToolFetch || k == chat.ToolThink
}
