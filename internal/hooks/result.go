package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Outcomes of one hook run, as people read them.
const (
	OutcomeOK       = "ok"
	OutcomeContext  = "context added"
	OutcomeBlocked  = "blocked"
	OutcomeDenied   = "denied"
	OutcomeAsked    = "ask"
	OutcomeAllowed  = "allowed"
	OutcomeStopped  = "stopped"
	OutcomeError    = "error"
	OutcomeTimedOut = "timed out"
)

// Run is what one hook command did.
type Run struct {
	Command string
	Outcome string
	// Reason says why: the block or deny reason, the error.
	Reason string
	// Output is what the person is shown: plain stdout, or the JSON's
	// systemMessage; empty when the hook asked to suppress it.
	Output string

	block      bool
	permission string // allow, ask, deny
	permReason string
	context    string
	updated    json.RawMessage
	stop       bool
	stopReason string
}

// Outcome is what an event's hooks decided together.
type Outcome struct {
	// Runs are the hooks that ran, in configuration order.
	Runs []Run
	// Block: a hook blocked (exit 2, or "decision": "block"). For
	// PreToolUse the call is refused, for UserPromptSubmit the prompt,
	// for Stop the model goes on; for PostToolUse and PostToolUseFailure
	// the model is told.
	// Reason is what the model (or, for a prompt, the person) is told.
	Block  bool
	Reason string
	// Permission is PreToolUse's strongest permissionDecision (deny over
	// ask over allow), with its reason.
	Permission       string
	PermissionReason string
	// Context is text to add to the model's context (additionalContext, a
	// UserPromptSubmit or SessionStart hook's stdout).
	Context []string
	// UpdatedInput replaces a PreToolUse call's arguments (the last hook
	// that gave one wins).
	UpdatedInput json.RawMessage
	// Stop: a hook said "continue": false; the turn ends with StopReason
	// shown to the person.
	Stop       bool
	StopReason string
}

// raw is what a hook process left.
type raw struct {
	exit           int
	stdout, stderr string
	err            error
	timedOut       time.Duration
}

// output is Claude Code's JSON hook output.
type output struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	SuppressOutput     bool   `json:"suppressOutput"`
	SystemMessage      string `json:"systemMessage"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		AdditionalContext        string          `json:"additionalContext"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

// blocking events are those where exit 2 (or "decision": "block") changes
// what happens; elsewhere it is an error shown to the person.
func blocking(ev Event) bool {
	switch ev {
	case PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop, SubagentStop:
		return true
	}
	return false
}

// takesStdoutAsContext: a plain stdout is added to the model's context.
func takesStdoutAsContext(ev Event) bool { return ev == UserPromptSubmit || ev == SessionStart }

// parse reads one hook's result as Claude Code does: exit 0 continues
// (stdout is JSON or text), exit 2 blocks with stderr as the reason, any
// other code is an error that blocks nothing.
func parse(ev Event, r raw) Run {
	stderr, stdout := strings.TrimSpace(r.stderr), strings.TrimSpace(r.stdout)
	switch {
	case r.timedOut > 0:
		return Run{Outcome: OutcomeTimedOut, Reason: fmt.Sprintf("killed after %s", r.timedOut)}
	case r.err != nil:
		return Run{Outcome: OutcomeError, Reason: r.err.Error()}
	case r.exit == 2 && blocking(ev):
		return Run{Outcome: OutcomeBlocked, Reason: orDefault(stderr, "blocked by a hook (exit 2, no message)"), block: true}
	case r.exit != 0:
		return Run{Outcome: OutcomeError, Reason: orDefault(stderr, fmt.Sprintf("exit %d", r.exit))}
	}
	if strings.HasPrefix(stdout, "{") {
		var o output
		if json.Unmarshal([]byte(stdout), &o) == nil {
			return parseJSON(ev, o)
		}
	}
	if takesStdoutAsContext(ev) && stdout != "" {
		return Run{Outcome: OutcomeContext, Output: stdout, context: stdout}
	}
	return Run{Outcome: OutcomeOK, Output: stdout}
}

func parseJSON(ev Event, o output) Run {
	hs := o.HookSpecificOutput
	run := Run{Outcome: OutcomeOK, Output: o.SystemMessage}
	if o.SuppressOutput {
		run.Output = ""
	}
	if ev == PreToolUse {
		// "approve"/"block" are the older spellings of allow/deny.
		decision := map[string]string{"approve": "allow", "block": "deny"}[o.Decision]
		if d := hs.PermissionDecision; d == "allow" || d == "deny" || d == "ask" {
			decision = d
		}
		run.permission, run.permReason = decision, orDefault(hs.PermissionDecisionReason, o.Reason)
		switch decision {
		case "deny":
			run.Outcome, run.Reason = OutcomeDenied, orDefault(run.permReason, "denied by a hook")
		case "ask":
			run.Outcome, run.Reason = OutcomeAsked, run.permReason
		case "allow":
			run.Outcome, run.Reason = OutcomeAllowed, run.permReason
		}
		if len(hs.UpdatedInput) > 0 && string(hs.UpdatedInput) != "null" {
			run.updated = hs.UpdatedInput
		}
	} else if o.Decision == "block" && blocking(ev) {
		run.block, run.Outcome, run.Reason = true, OutcomeBlocked, orDefault(o.Reason, "blocked by a hook")
	}
	if hs.AdditionalContext != "" && ev != PreToolUse {
		run.context = hs.AdditionalContext
		if run.Outcome == OutcomeOK {
			run.Outcome = OutcomeContext
		}
	}
	if o.Continue != nil && !*o.Continue {
		run.stop, run.stopReason = true, orDefault(o.StopReason, "stopped by a hook")
		run.Outcome, run.Reason = OutcomeStopped, run.stopReason
	}
	return run
}

// permRank orders permission decisions: the strictest wins.
var permRank = map[string]int{"": 0, "allow": 1, "ask": 2, "deny": 3}

// merge combines an event's runs: any block blocks (reasons joined), the
// strictest permission wins, contexts add up.
func merge(ev Event, runs []Run) Outcome {
	out := Outcome{Runs: runs}
	var reasons []string
	for _, r := range runs {
		if r.block {
			out.Block = true
			reasons = append(reasons, r.Reason)
		}
		if permRank[r.permission] > permRank[out.Permission] {
			out.Permission, out.PermissionReason = r.permission, r.permReason
		}
		if r.context != "" {
			out.Context = append(out.Context, r.context)
		}
		if r.updated != nil {
			out.UpdatedInput = r.updated
		}
		if r.stop && !out.Stop {
			out.Stop, out.StopReason = true, r.stopReason
		}
	}
	out.Reason = strings.Join(reasons, "\n")
	if ev == PreToolUse && out.Block {
		out.Permission, out.PermissionReason = "deny", out.Reason
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
