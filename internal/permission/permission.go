// Package permission decides whether a tool call may run (policy) and carries
// the approval a person gives when it is not clear (approver).
package permission

import (
	"context"
	"encoding/json"
)

// Action is a policy decision.
type Action string

const (
	Allow Action = "allow"
	Ask   Action = "ask"
	Deny  Action = "deny"
)

// Call is what a policy decides on.
type Call struct {
	Tool string
	Args json.RawMessage
	// Agent is the active agent (mode), e.g. "build" or "plan".
	Agent string
	// ReadOnly: the tool declares it changes nothing (MCP readOnlyHint).
	ReadOnly bool
}

// Decision is a policy's answer with the reason a person is shown.
type Decision struct {
	Action Action
	Reason string
	// Danger: an Ask that must be handled like a tool-level danger request
	// (only y/n; a non-interactive run denies it). Plan mode sets it for
	// commands off the read-only whitelist (SPEC §7).
	Danger bool
}

// Policy decides on a tool call.
type Policy interface {
	Decide(c Call) Decision
}

// AllowAll allows every call. It is the policy until rules are configured.
type AllowAll struct{}

func (AllowAll) Decide(Call) Decision { return Decision{Action: Allow} }

// Request is one aggregated approval interaction: the policy's ask (if any)
// and every tool-level reason, shown to a person once.
type Request struct {
	CallID  string
	Tool    string
	Subject string // the command or path, as a person reads it
	Reasons []string
	// PolicyAsk: the policy said ask; "always" may be offered.
	PolicyAsk bool
	// Danger: a tool-level check raised reasons; only y/n is offered.
	Danger bool
}

// Reply is a person's answer.
type Reply struct {
	Approved bool
	// Always: remember this exact call as allowed (policy asks only).
	Always bool
	// Feedback is optional text for the model when denied.
	Feedback string
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
	return Reply{Approved: false, Feedback: "no one is available to approve this (non-interactive run)"}, nil
}
