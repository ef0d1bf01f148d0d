// Package hooks runs the person's hook commands at points of a session, in
// Claude Code's shape so its configurations work unchanged: an event's
// matcher groups, a JSON object on the command's stdin, and the exit code
// and JSON stdout read back as a decision. It knows nothing of how a
// command is started (coder's launchers: the person's own process outside
// the sandbox, or the sandbox when hooks.sandbox asks) nor of turns: the
// orchestrator asks, and acts on the Outcome.
package hooks

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Event is a point of the session where hooks run.
type Event string

const (
	PreToolUse  Event = "PreToolUse"
	PostToolUse Event = "PostToolUse"
	// PostToolUseFailure runs instead of PostToolUse for a call that ran
	// and failed (or was interrupted).
	PostToolUseFailure Event = "PostToolUseFailure"
	UserPromptSubmit   Event = "UserPromptSubmit"
	Stop               Event = "Stop"
	SubagentStop       Event = "SubagentStop"
	SessionStart       Event = "SessionStart"
	SessionEnd         Event = "SessionEnd"
	PreCompact         Event = "PreCompact"
	Notification       Event = "Notification"
)

// Events are the events coder runs hooks for, in the order a session meets
// them.
var Events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure, Notification,
	PreCompact, Stop, SubagentStop, SessionEnd}

// Known reports whether name is an event coder runs hooks for.
func Known(name string) bool { return slices.Contains(Events, Event(name)) }

// Command is one hook command.
type Command struct {
	Command string
	// Timeout bounds the command; the caller fills in the default.
	Timeout time.Duration
	// Sandbox runs it through Options.Sandboxed instead of
	// Options.Launcher (hooks.sandbox: the person opted back in).
	Sandbox bool
}

// Group is one matcher entry of an event: the commands that run when the
// matcher matches, and the file the entry came from.
type Group struct {
	Event    Event
	Matcher  string
	Commands []Command
	Source   string

	re *regexp.Regexp // nil: matches everything
}

// compile makes a group's matcher: empty or "*" matches every name;
// otherwise a regular expression that must match the whole name (Claude
// Code's "Write" matches Write, not WriteFile).
func (g *Group) compile() error {
	re, err := matcherRE(g.Matcher)
	if err != nil {
		return fmt.Errorf("hooks.%s: matcher %q: %v", g.Event, g.Matcher, err)
	}
	g.re = re
	return nil
}

// matcherRE is a matcher as a regular expression of the whole name; nil
// for one that matches everything ("" or "*").
func matcherRE(matcher string) (*regexp.Regexp, error) {
	m := strings.TrimSpace(matcher)
	if m == "" || m == "*" {
		return nil, nil
	}
	return regexp.Compile("^(?:" + m + ")$")
}

// Matches reports whether the group applies to name: a tool name for the
// tool events (coder's name, or one of aliases: the Claude Code names the
// tool's facts give, so a matcher written for Claude Code — "Bash",
// "Edit|Write" — selects the same calls), the source, trigger or reason
// for the session events.
func (g *Group) Matches(name string, aliases ...string) bool {
	if g.re == nil {
		return true
	}
	if g.re.MatchString(name) {
		return true
	}
	for _, alias := range aliases {
		if g.re.MatchString(alias) {
			return true
		}
	}
	return false
}

// CheckMatcher reports whether matcher is a valid matcher.
func CheckMatcher(matcher string) error {
	if _, err := matcherRE(matcher); err != nil {
		return fmt.Errorf("matcher %q is not a valid regular expression: %v", matcher, err)
	}
	return nil
}
