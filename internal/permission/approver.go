package permission

import "context"

// NonInteractive is the approver of a run with nobody to ask (headless,
// approval.interactive=false, approval.auto_approve_ask=true): a policy
// ask is approved, because the person chose to run unattended; a danger
// request is denied unless config allows danger explicitly, and a re-run
// outside the sandbox always.
type NonInteractive struct {
	// AllowDanger approves danger requests too (approval.allow_danger).
	AllowDanger bool
}

// EscalationDeniedFeedback is what the model hears when a run with nobody
// to ask refuses to leave the sandbox.
const EscalationDeniedFeedback = "denied: an unattended run never runs a command outside the sandbox"

// DangerDeniedFeedback is what the model hears when a danger request is
// denied for want of a person.
const DangerDeniedFeedback = "denied: not interactive; run coder interactively or set approval.allow_danger"

// Approve implements Approver. It never blocks.
func (n NonInteractive) Approve(ctx context.Context, r Request) (Reply, error) {
	if err := ctx.Err(); err != nil {
		return Reply{}, err
	}
	if r.Escalation {
		return Reply{Approved: false, Unattended: true, Feedback: EscalationDeniedFeedback}, nil
	}
	if r.Danger && !n.AllowDanger {
		return Reply{Approved: false, Unattended: true, Feedback: DangerDeniedFeedback}, nil
	}
	return Reply{Approved: true, Unattended: true}, nil
}

// AutoApproveAsks approves policy asks itself and passes only danger
// requests on to a person (approval.auto_approve_ask in the REPL: a
// dangerous command still gets its explicit y/n).
type AutoApproveAsks struct{ Person Approver }

// Approve implements Approver.
func (a AutoApproveAsks) Approve(ctx context.Context, r Request) (Reply, error) {
	if err := ctx.Err(); err != nil {
		return Reply{}, err
	}
	if !r.Danger {
		return Reply{Approved: true, Unattended: true}, nil
	}
	return a.Person.Approve(ctx, r)
}
