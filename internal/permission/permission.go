// Package permission decides whether a tool call may run (policy) and carries
// the approval a person gives when it is not clear (approver).
package permission

import (
	"context"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/tools"
)

// Action is a policy decision.
type Action string

const (
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// Decision is a policy's answer with the reason a person is shown.
type Decision struct {
	Action Action
	Reason string
	// Danger: an Ask that must be handled like a tool-level danger request
	// (only y/n; a non-interactive run denies it). Plan mode sets it for
	// commands off the read-only whitelist.
	Danger bool
}

// Policy decides on a decoded tool call made in mode m. Bash calls are
// judged on their parsed command line (c.Shell), file tools on their
// resolved paths, other tools on their subject.
type Policy interface {
	Decide(c *tools.Call, m agent.Mode) Decision
}

// AllowAll allows every call. It is the policy until rules are configured.
type AllowAll struct{}

func (AllowAll) Decide(*tools.Call, agent.Mode) Decision { return Decision{Action: Allow} }

// Request is one aggregated approval interaction: the policy's ask (if any)
// and every tool-level reason, shown to a person once.
type Request struct {
	// Call is the call asked about: its tool, subject (the command or
	// path as a person reads it) and kind.
	Call *tools.Call
	// Preview is the change the call would make (a unified diff), when
	// the tool can tell before running.
	Preview string
	Reasons []string
	// PolicyAsk: the policy said ask; "always" may be offered.
	PolicyAsk bool
	// Danger: a tool-level check raised reasons; only y/n is offered.
	Danger bool
	// Escalation: a re-run, once, outside coder's sandbox of a command the
	// sandbox refused. Always Danger too; only a person present may say
	// yes, whatever approval.allow_danger says.
	Escalation bool
}

// Reply is a person's answer.
type Reply struct {
	Approved bool
	// Always: remember this exact call as allowed (policy asks only).
	Always bool
	// Feedback is optional text for the model when denied.
	Feedback string
	// Unattended: nobody was asked; the answer is the unattended run's rule.
	Unattended bool
}

// Approver asks a person. It returns ctx.Err() when cancelled while waiting
// (Esc is a global cancel, not "no").
type Approver interface {
	Approve(ctx context.Context, r Request) (Reply, error)
}

// DenyWhenAsked answers every request with "no": the approver of a run that
// has nobody to ask.
type DenyWhenAsked struct{}

func (DenyWhenAsked) Approve(ctx context.Context, r Request) (Reply, error) {
	if err := ctx.Err(); err != nil {
		return Reply{}, err
	}
	return Reply{Approved: false, Unattended: true, Feedback: "no one is available to approve this (non-interactive run)"}, nil
}
