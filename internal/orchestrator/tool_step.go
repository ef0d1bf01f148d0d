package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/tools"
)

// admitted is a decoded tool call that went through the chain before
// execution: refused is set when it must not run (it is then the call's
// result), result once it ran.
type admitted struct {
	call    *tools.Call
	refused *tools.Result
	result  *tools.Result
	// hookStop is a hook's "continue": false on this call: the turn ends
	// once the step's results are in.
	hookStop string
}

// toolLoopStep runs one assistant message's tool calls. When every call is
// read-only they run concurrently (approvals are still asked one at a time,
// before any runs); otherwise they run serially in the model's order.
// Results are appended in the model's order either way.
//
// calls belong to the last assistant message; a call whose result is already
// stored after that message (a resumed session) is never executed again.
func (o *Orchestrator) toolLoopStep(ctx context.Context, ts *turnState, msgCalls []chat.ToolCall) error {
	o.setState(ts, event.StateToolRunning)
	done := o.storedResults()
	var calls []*tools.Call
	for _, tc := range msgCalls {
		if !done[tc.ID] {
			calls = append(calls, o.decode(tc))
		}
	}
	if len(calls) > 1 && allReadOnly(calls) {
		return o.runConcurrently(ctx, ts, calls)
	}
	var stop string
	for _, c := range calls {
		if stop != "" {
			if err := o.appendResult(ctx, notRun(c, stop)); err != nil {
				return err
			}
			continue
		}
		a := o.admit(ctx, ts, c)
		if ctx.Err() == nil && a.refused == nil {
			if err := o.execute(ctx, a, ts); err != nil {
				_ = o.appendResult(ctx, a)
				return err
			}
		}
		if err := o.appendResult(ctx, a); err != nil {
			return err
		}
		stop = orDefault(stop, a.hookStop)
	}
	if stop != "" {
		return &hookStop{reason: stop}
	}
	return ctx.Err()
}

// runConcurrently admits every call first (approvals one at a time), then
// runs the admitted ones at once. A hook's stop refuses the calls after it,
// as in the serial loop.
func (o *Orchestrator) runConcurrently(ctx context.Context, ts *turnState, calls []*tools.Call) error {
	batch := make([]*admitted, len(calls))
	admittedCalls := make([]*tools.Call, len(calls))
	var stop string
	for i, c := range calls {
		if stop != "" {
			batch[i] = notRun(c, stop)
		} else {
			batch[i] = o.admit(ctx, ts, c)
			stop = batch[i].hookStop
		}
		admittedCalls[i] = batch[i].call
	}
	// A PreToolUse hook's updatedInput may have made a call a writing one.
	serial := !allReadOnly(admittedCalls)
	var wg sync.WaitGroup
	errs := make([]error, len(batch))
	for i, a := range batch {
		if a.refused != nil || ctx.Err() != nil {
			continue
		}
		if serial {
			if stop != "" {
				a.refuse(stoppedResult(stop))
				continue
			}
			errs[i] = o.execute(ctx, a, ts)
			stop = orDefault(stop, a.hookStop)
			continue
		}
		wg.Go(func() { errs[i] = o.execute(ctx, a, ts) })
	}
	wg.Wait()
	// Every call gets its result before any error ends the step, so the
	// history stays valid for the next model call.
	for _, a := range batch {
		if err := o.appendResult(ctx, a); err != nil {
			return err
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, a := range batch {
		if a.hookStop != "" {
			return &hookStop{reason: a.hookStop}
		}
	}
	return ctx.Err()
}

// notRun is c refused because a hook stopped the turn before it: it gets a
// result, never runs.
func notRun(c *tools.Call, stop string) *admitted {
	return (&admitted{call: c}).refuse(stoppedResult(stop))
}

func stoppedResult(stop string) tools.Result {
	return tools.Failure("not run: a hook stopped the turn: %s", stop)
}

// storedResults are the ids of tool results stored after the last assistant
// message. Ids are only unique per message (some servers reuse "call_0"), so
// earlier messages' results do not count.
func (o *Orchestrator) storedResults() map[string]bool {
	msgs := o.conv.messages()
	done := map[string]bool{}
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == chat.RoleTool; i-- {
		done[msgs[i].ToolCallID] = true
	}
	return done
}

func allReadOnly(calls []*tools.Call) bool {
	for _, c := range calls {
		if c.Failure == nil && !c.ReadOnly {
			return false
		}
	}
	return true
}

// Decode turns a model's call into a typed call as a turn would, without
// running anything: front ends use it to show stored calls (a replayed
// session) the way live ones are shown.
func (o *Orchestrator) Decode(tc chat.ToolCall) *tools.Call { return o.decode(tc) }

// decode turns a model's call into a typed one, once. A call to a tool
// that does not exist (or has no name) is told the tools this mode offers.
func (o *Orchestrator) decode(tc chat.ToolCall) *tools.Call {
	c := o.tools.Decode(tc)
	if c.Tool == nil {
		r := tools.Unknown(tc.Name, o.enabledNames())
		c.Failure = &r
	}
	return c
}

// admit runs the chain before execution: a call that could not be decoded
// is answered at once (nobody is asked about garbage); then the agent
// check, the policy, the tool-level reasons, and at most one approval.
func (o *Orchestrator) admit(ctx context.Context, ts *turnState, c *tools.Call) *admitted {
	a := &admitted{call: c}
	if c.Failure != nil {
		return a.refuse(*c.Failure)
	}
	if !o.agent.Enabled(c.Name, c.Tool.Facts()) {
		return a.refuse(tools.Failure("tool %q is disabled in %s mode", c.Name, o.agent.Name))
	}
	c, hookPerm, hookReason, refused := o.preToolHooks(ctx, a)
	if refused {
		return a
	}
	c.Sandbox = o.agent.Mode.Access()
	dec := o.opts.Policy.Decide(c, o.agent.Mode)
	if dec.Action == permission.Deny {
		return a.refuse(tools.Failure("permission denied by the policy: %s", orDefault(dec.Reason, "denied by policy")))
	}
	// A hook's allow spares only the policy's plain ask; a hook's ask adds
	// one. Neither touches a deny, plan mode's floor or the call's own
	// danger reasons below, and the sandbox is the launcher's.
	switch {
	case hookPerm == "allow" && dec.Action == permission.Ask && !dec.Danger:
		dec.Action = permission.Allow
	case hookPerm == "ask" && dec.Action != permission.Ask:
		dec = permission.Decision{Action: permission.Ask, Reason: "a PreToolUse hook asks: " + orDefault(hookReason, c.Name)}
	}
	reasons := slices.Clone(c.Reasons)
	if dec.Action != permission.Ask && len(reasons) == 0 {
		return a
	}
	// Tool-level reasons, and plan mode's floor, make a danger request: y/n
	// only, and denied when nobody can be asked.
	danger := len(reasons) > 0 || dec.Danger
	if dec.Action == permission.Ask {
		reasons = append([]string{orDefault(dec.Reason, c.Name+" requires approval")}, reasons...)
	}
	req := permission.Request{Call: c, Reasons: reasons, PolicyAsk: dec.Action == permission.Ask, Danger: danger}
	if p, ok := c.Tool.(tools.Previewer); ok {
		req.Preview, _ = p.Preview(c)
	}
	return o.askApproval(ctx, ts, a, req)
}

func (o *Orchestrator) askApproval(ctx context.Context, ts *turnState, a *admitted, req permission.Request) *admitted {
	c := req.Call
	reply, err := o.approval(ctx, ts, req)
	switch {
	case err != nil:
		return a.refuse(cancelledResult())
	case !reply.Approved:
		return a.refuse(tools.Failure("%s", denialText(req, reply)))
	}
	if reply.Always && o.opts.OnAlways != nil {
		if err := o.opts.OnAlways(c.Name, c.Subject); err != nil {
			o.emit(event.Notice{Text: "could not remember the approval: " + err.Error()})
		}
	}
	c.OutsideApproved = true
	return a
}

// approval puts req to the approver, with the turn awaiting a person meanwhile,
// and records the question and its answer as events.
func (o *Orchestrator) approval(ctx context.Context, ts *turnState, req permission.Request) (permission.Reply, error) {
	c := req.Call
	prev := ts.state
	o.setState(ts, event.StateAwaitingHuman)
	o.notifyHooks(ctx, "coder needs your permission to use "+c.Name)
	o.emit(event.ApprovalRequested{CallID: c.ID, Tool: c.Name, Subject: c.Subject, Reasons: req.Reasons,
		Danger: req.Danger, Preview: req.Preview})
	reply, err := o.opts.Front.Approver.Approve(ctx, req)
	o.setState(ts, prev)
	// "Always" is remembered for a plain policy ask only: never for a
	// danger request or a re-run outside the sandbox, whatever a front end
	// offered or a client sent.
	reply.Always = reply.Always && req.PolicyAsk && !req.Danger && !req.Escalation
	decision := "denied"
	switch {
	case err != nil:
		decision = "cancelled"
	case reply.Approved && reply.Always:
		decision = "always"
	case reply.Approved:
		decision = "approved"
	}
	o.emit(event.ApprovalAnswered{CallID: c.ID, Decision: decision, Feedback: reply.Feedback})
	return reply, err
}

// denialText tells the model who said no and why: a person, or the
// unattended run's policy, which asked nobody (saying a person refused
// would be a lie the model might repeat).
func denialText(req permission.Request, reply permission.Reply) string {
	if reply.Unattended {
		msg := "the policy denied this call without asking anyone (nobody can approve it in this run): " +
			strings.Join(req.Reasons, "; ")
		if reply.Feedback != "" {
			msg += ". " + reply.Feedback
		}
		return msg
	}
	msg := "the user denied this call: " + strings.Join(req.Reasons, "; ")
	if reply.Feedback != "" {
		msg += ". Feedback: " + reply.Feedback
	}
	return msg
}

// execute runs an admitted call. The error is an infrastructure failure.
func (o *Orchestrator) execute(ctx context.Context, a *admitted, ts *turnState) error {
	c := a.call
	o.emit(event.ToolStarted{CallID: c.ID, Name: c.Name, ToolKind: c.Kind, Summary: c.Summary,
		Args: c.Raw, Paths: relPaths(c)})
	start := time.Now()
	if err := o.conv.markStarted(ctx, c.ID); err != nil {
		return err
	}
	after, uerr := o.aroundCall(ctx, c)
	if uerr != nil {
		return uerr
	}
	live, flush := o.liveOutput(ctx, c)
	o.beforeEdit(c)
	res, err := tools.Execute(live, c)
	if err != nil {
		res = tools.Failure("%s failed: %v", c.Name, err)
	} else {
		res = o.escalate(live, ts, c, res) // a re-run's output shows live too
	}
	flush()
	res = o.afterEdit(ctx, c, res)
	res = o.redact(res)
	if uerr := after(); uerr != nil && err == nil {
		err = uerr
	}
	res = o.postToolHooks(ctx, a, res)
	a.result = &res
	if len(res.Changed) > 0 {
		ts.addEdited(res.Changed)
	}
	o.emit(event.ToolFinished{CallID: c.ID, Name: c.Name, Args: c.Raw, OK: res.OK, Summary: res.Summary,
		Diff: res.Diff, Result: res.Content, Duration: time.Since(start), SandboxRefused: res.Bash != nil && res.Bash.Refused})
	if err != nil {
		return fmt.Errorf("tool %s: %w", c.Name, err)
	}
	return nil
}

func relPaths(c *tools.Call) []string {
	var out []string
	for _, p := range c.Paths {
		out = append(out, p.Rel)
	}
	return out
}

// aroundCall brackets a call for /undo: it reverts what the call changes
// (a bash command's changes are captured by marking the workspace) and
// only that; the returned function records after it.
func (o *Orchestrator) aroundCall(ctx context.Context, c *tools.Call) (after func() error, err error) {
	u := o.opts.Persistence.Undo
	if u == nil {
		return func() error { return nil }, nil
	}
	ctx = context.WithoutCancel(ctx)
	done, err := u.AroundCall(ctx, c.Name == tools.Bash)
	if err != nil {
		return nil, &StorageError{Err: err}
	}
	return func() error {
		notice, err := done(ctx)
		if notice != "" {
			o.emit(event.Notice{Text: notice})
		}
		if err != nil {
			return &StorageError{Err: err}
		}
		return nil
	}, nil
}

// appendResult appends the call's tool message. A call that never ran
// (refused, or cancelled before its turn) still gets a result, so the
// history stays valid for the next model call.
func (o *Orchestrator) appendResult(ctx context.Context, a *admitted) error {
	c := a.call
	res := a.result
	if res == nil {
		res = a.refused
	}
	if res == nil {
		r := cancelledResult()
		res = &r
	}
	if a.result == nil {
		o.emit(event.ToolFinished{CallID: c.ID, Name: c.Name, Args: c.Raw, OK: false, Summary: res.Summary, Result: res.Content})
	}
	m := chat.Message{Role: chat.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: res.Content, IsError: !res.OK}
	o.resultImages(&m, res)
	return o.conv.append(ctx, m)
}

// redact removes secret values from a result, whatever printed them: a
// command that ran env, a file that held a key, a server that echoed one.
func (o *Orchestrator) redact(r tools.Result) tools.Result {
	rd := o.opts.Secrets
	if rd == nil {
		return r
	}
	r.Content, r.Summary, r.Diff = rd.Redact(r.Content), rd.Redact(r.Summary), rd.Redact(r.Diff)
	if b := r.Bash; b != nil {
		c := *b
		c.Stdout, c.Stderr, c.Error = rd.Redact(c.Stdout), rd.Redact(c.Stderr), rd.Redact(c.Error)
		r.Bash = &c
	}
	return r
}

func (a *admitted) refuse(r tools.Result) *admitted {
	a.refused = &r
	return a
}

func cancelledResult() tools.Result {
	return tools.Failure("cancelled by the user before it ran")
}

func (ts *turnState) addEdited(paths []string) {
	for _, p := range paths {
		if !slices.Contains(ts.edited, p) {
			ts.edited = append(ts.edited, p)
		}
	}
}

func (o *Orchestrator) enabledNames() []string {
	var names []string
	for _, t := range o.tools.Tools() {
		if o.agent.Enabled(t.Name(), t.Facts()) {
			names = append(names, t.Name())
		}
	}
	return names
}

// enabled reports whether the active agent may use the tool called name
// (by its facts: a tool that is not registered has none).
func (o *Orchestrator) enabled(name string) bool {
	var f tools.Facts
	if t, ok := o.tools.Get(name); ok {
		f = t.Facts()
	}
	return o.agent.Enabled(name, f)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
