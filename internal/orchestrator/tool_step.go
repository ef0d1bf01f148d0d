package orchestrator

import (
	"context"
	"encoding/json"
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

// admitted is a tool call that passed (or failed) the chain before execution.
type admitted struct {
	call chat.ToolCall
	tool tools.Tool
	// ctx carries approval markers for the execution.
	ctx context.Context
	// refused is set when the call must not run; it is the call's result.
	refused *tools.Result
	// done is set once the call has a result to append.
	result *tools.Result
}

// toolLoopStep runs one assistant message's tool calls (SPEC §6). When every
// call is read-only they run concurrently (approvals are still asked one at a
// time, before any runs); otherwise they run serially in the model's order.
// Results are appended in the model's order either way.
//
// calls belong to the last assistant message; a call whose result is already
// stored after that message (a resumed session) is never executed again.
func (o *Orchestrator) toolLoopStep(ctx context.Context, ts *turnState, calls []chat.ToolCall) error {
	o.setState(ts, event.StateToolRunning)
	done := o.storedResults()
	if o.allReadOnly(calls) && len(calls) > 1 {
		return o.runConcurrently(ctx, ts, calls, done)
	}
	for _, c := range calls {
		if done[c.ID] {
			continue
		}
		a := o.admit(ctx, ts, c)
		if ctx.Err() == nil && a.refused == nil {
			if err := o.execute(a, ts); err != nil {
				_ = o.appendResult(ctx, a)
				return err
			}
		}
		if err := o.appendResult(ctx, a); err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (o *Orchestrator) runConcurrently(ctx context.Context, ts *turnState, calls []chat.ToolCall, done map[string]bool) error {
	batch := make([]*admitted, 0, len(calls))
	for _, c := range calls {
		if !done[c.ID] {
			batch = append(batch, o.admit(ctx, ts, c))
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, len(batch))
	for i, a := range batch {
		if a.refused != nil || ctx.Err() != nil {
			continue
		}
		wg.Go(func() { errs[i] = o.execute(a, ts) })
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
	return ctx.Err()
}

// storedResults are the ids of tool results stored after the last assistant
// message. Ids are only unique per message (some servers reuse "call_0"), so
// earlier messages' results do not count.
func (o *Orchestrator) storedResults() map[string]bool {
	msgs := o.sess.Messages
	done := map[string]bool{}
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == chat.RoleTool; i-- {
		done[msgs[i].ToolCallID] = true
	}
	return done
}

func (o *Orchestrator) allReadOnly(calls []chat.ToolCall) bool {
	for _, c := range calls {
		t, ok := o.tools.Get(c.Name)
		if !ok {
			return false
		}
		if rc, ok := t.(interface{ ReadOnlyFor(json.RawMessage) bool }); ok {
			if !rc.ReadOnlyFor(json.RawMessage(c.Arguments)) {
				return false
			}
		} else if !t.ReadOnly() {
			return false
		}
	}
	return true
}

// admit runs the chain before execution: tool lookup, agent check, policy,
// tool-level approval reasons, and at most one approval interaction.
func (o *Orchestrator) admit(ctx context.Context, ts *turnState, c chat.ToolCall) *admitted {
	a := &admitted{call: c, ctx: ctx}
	t, ok := o.tools.Get(c.Name)
	if !ok {
		return a.refuse(tools.Unknown(c.Name, o.enabledNames()))
	}
	a.tool = t
	if !o.agent.Enabled(c.Name) {
		return a.refuse(tools.Failure("tool %q is disabled in %s mode", c.Name, o.agent.Name))
	}
	args := json.RawMessage(c.Arguments)
	dec := o.opts.Policy.Decide(permission.Call{Tool: c.Name, Args: args, Agent: o.agent.Name, ReadOnly: t.ReadOnly()})
	if dec.Action == permission.Deny {
		return a.refuse(tools.Failure("permission denied: %s", orDefault(dec.Reason, "denied by policy")))
	}
	var reasons []string
	if ac, ok := t.(tools.ApprovalChecker); ok && json.Valid(args) {
		reasons = ac.ApprovalReasons(args)
	}
	if dec.Action != permission.Ask && len(reasons) == 0 {
		return a
	}
	// Tool-level reasons, and plan mode's floor, make a danger request: y/n
	// only, and denied when nobody can be asked.
	danger := len(reasons) > 0 || dec.Danger
	if dec.Action == permission.Ask {
		reasons = append([]string{orDefault(dec.Reason, c.Name+" requires approval")}, reasons...)
	}
	req := permission.Request{
		CallID: c.ID, Tool: c.Name, Subject: approvalSubject(t, args), Reasons: reasons,
		PolicyAsk: dec.Action == permission.Ask, Danger: danger,
	}
	return o.askApproval(ctx, ts, a, req)
}

func (o *Orchestrator) askApproval(ctx context.Context, ts *turnState, a *admitted, req permission.Request) *admitted {
	prev := ts.state
	o.setState(ts, event.StateAwaitingHuman)
	reply, err := o.opts.Approver.Approve(ctx, req)
	o.setState(ts, prev)
	decision := "denied"
	switch {
	case err != nil:
		decision = "cancelled"
	case reply.Approved && reply.Always:
		decision = "always"
	case reply.Approved:
		decision = "approved"
	}
	o.emit(event.ApprovalRequested{CallID: req.CallID, Tool: req.Tool, Subject: req.Subject,
		Reasons: req.Reasons, Danger: req.Danger, Decision: decision})
	switch {
	case err != nil:
		return a.refuse(cancelledResult())
	case !reply.Approved:
		msg := "the user denied this call: " + strings.Join(req.Reasons, "; ")
		if reply.Feedback != "" {
			msg += ". Feedback: " + reply.Feedback
		}
		return a.refuse(tools.Failure("%s", msg))
	}
	if reply.Always && o.opts.OnAlways != nil {
		if err := o.opts.OnAlways(req.Tool, req.Subject); err != nil {
			o.emit(event.Notice{Text: "could not remember the approval: " + err.Error()})
		}
	}
	a.ctx = tools.WithOutsideApproved(ctx)
	return a
}

// execute runs an admitted call. The error is an infrastructure failure.
func (o *Orchestrator) execute(a *admitted, ts *turnState) error {
	args := json.RawMessage(a.call.Arguments)
	o.emit(event.ToolStarted{CallID: a.call.ID, Name: a.call.Name, Summary: summarize(a.tool, args), Args: a.call.Arguments})
	start := time.Now()
	after, uerr := o.beforeBash(a)
	if uerr != nil {
		return uerr
	}
	res, err := tools.Execute(a.ctx, a.tool, a.call.Arguments)
	if err != nil {
		res = tools.Failure("%s failed: %v", a.call.Name, err)
	}
	if uerr := after(); uerr != nil && err == nil {
		err = uerr
	}
	a.result = &res
	if len(res.Changed) > 0 {
		ts.addEdited(res.Changed)
	}
	o.emit(event.ToolFinished{CallID: a.call.ID, Name: a.call.Name, OK: res.OK, Summary: res.Summary,
		Diff: res.Diff, Result: res.Content, Duration: time.Since(start)})
	if err != nil {
		return fmt.Errorf("tool %s: %w", a.call.Name, err)
	}
	return nil
}

// beforeBash marks the workspace before a bash call so /undo can revert
// what the command changes; the returned function captures after it.
func (o *Orchestrator) beforeBash(a *admitted) (after func() error, err error) {
	if o.opts.Undo == nil || a.call.Name != "bash" {
		return func() error { return nil }, nil
	}
	ctx := context.WithoutCancel(a.ctx)
	done, err := o.opts.Undo.AroundBash(ctx)
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
	res := a.result
	if res == nil {
		res = a.refused
	}
	if res == nil {
		r := cancelledResult()
		res = &r
	}
	if a.result == nil {
		o.emit(event.ToolFinished{CallID: a.call.ID, Name: a.call.Name, OK: false, Summary: res.Summary, Result: res.Content})
	}
	return o.appendMessage(ctx, chat.Message{
		Role: chat.RoleTool, ToolCallID: a.call.ID, ToolName: a.call.Name,
		Content: res.Content, IsError: !res.OK,
	})
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
	for _, n := range o.tools.Names() {
		if o.agent.Enabled(n) {
			names = append(names, n)
		}
	}
	return names
}

// approvalSubject is what a person approves and what "always" remembers:
// the exact command or path the policy judges, not a shortened summary.
func approvalSubject(t tools.Tool, args json.RawMessage) string {
	var a struct{ Command, Path string }
	if json.Unmarshal(args, &a) == nil {
		if a.Command != "" {
			return a.Command
		}
		if a.Path != "" {
			return a.Path
		}
	}
	return summarize(t, args)
}

func summarize(t tools.Tool, args json.RawMessage) string {
	if s, ok := t.(tools.Summarizer); ok && json.Valid(args) {
		return s.Summary(args)
	}
	return t.Name()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
