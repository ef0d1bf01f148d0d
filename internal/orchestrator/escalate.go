package orchestrator

import (
	"context"

	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/tools"
)

// escalate offers a person one re-run outside coder's sandbox of a bash
// call the sandbox seems to have refused. Never in plan mode (its promise
// is that nothing changes), never remembered, and never without a person:
// the approver of an unattended run says no. The model is told what
// happened either way.
func (o *Orchestrator) escalate(ctx context.Context, ts *turnState, c *tools.Call, res tools.Result) tools.Result {
	b := res.Bash
	if b == nil || !b.Refused || c.Sandbox != sandbox.WorkspaceWrite || ctx.Err() != nil {
		return res
	}
	req := permission.Request{Call: c, Danger: true, Escalation: true, Reasons: []string{
		"coder's sandbox refused it: " + b.Notes,
		"run it once more, outside the sandbox (this answer is not remembered)",
	}}
	reply, err := o.approval(ctx, ts, req)
	switch {
	case err != nil:
		return res
	case !reply.Approved || reply.Unattended:
		note := "The user declined to run it outside the sandbox."
		if reply.Unattended {
			note = "Nobody can approve running it outside the sandbox in this run."
		}
		if reply.Feedback != "" && !reply.Unattended {
			note += " Feedback: " + reply.Feedback
		}
		return b.WithNote(note)
	}
	c.Sandbox = sandbox.FullAccess
	again, err := tools.Execute(ctx, c)
	if err != nil || again.Bash == nil {
		return res
	}
	return again.Bash.WithNote("The user approved this re-run outside coder's sandbox; it ran unconfined.")
}
