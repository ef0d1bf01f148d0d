package orchestrator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/hooks"
	"github.com/coder-agent/coder/internal/tools"
)

// Hooks runs the person's hook commands of an event (Claude Code's hooks);
// *hooks.Runner is the production one. Run must be safe for concurrent
// use (read-only tool calls run at once) and bound every command by its
// timeout, so a hook never hangs a turn.
type Hooks interface {
	Has(ev hooks.Event) bool
	Run(ctx context.Context, in hooks.Input) hooks.Outcome
}

// ErrPromptBlocked ends a turn whose input a UserPromptSubmit hook refused.
var ErrPromptBlocked = errors.New("prompt blocked by a UserPromptSubmit hook")

// hookStop is a hook's "continue": false: the turn ends, successfully,
// with the hook's reason shown to the person.
type hookStop struct{ reason string }

func (h *hookStop) Error() string { return "stopped by a hook: " + h.reason }

// runHooks runs ev's hooks, if there are any, and reports each run as an
// event; the input's session fields are filled in here.
func (o *Orchestrator) runHooks(ctx context.Context, in hooks.Input) hooks.Outcome {
	if !o.hasHooks(in.Event) {
		return hooks.Outcome{}
	}
	in.SessionID, in.Cwd, in.PermissionMode = o.hookSession(), o.opts.Workspace, string(o.agent.Mode)
	out := o.opts.Hooks.Run(ctx, in)
	for _, r := range out.Runs {
		o.emit(event.HookRan{Event: string(in.Event), Tool: in.ToolName, Command: r.Command, Outcome: r.Outcome,
			Reason: o.opts.Secrets.Redact(r.Reason), Output: o.opts.Secrets.Redact(r.Output)})
	}
	return out
}

// hasHooks reports whether any hook listens to ev: what a hook's input
// costs to build is spent only then.
func (o *Orchestrator) hasHooks(ev hooks.Event) bool {
	return o.opts.Hooks != nil && o.opts.Hooks.Has(ev)
}

// hookSession is the session hooks are told of: a subagent's is its
// parent's, as in Claude Code.
func (o *Orchestrator) hookSession() string {
	if o.parentSession != "" {
		return o.parentSession
	}
	return o.conv.sess.ID
}

// hookContext wraps what hooks asked to add to the model's context.
func hookContext(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	return "\n\n<system-reminder>\n" + strings.Join(parts, "\n") + "\n</system-reminder>"
}

// promptHooks runs UserPromptSubmit before the input joins the history:
// a block refuses it (nothing is appended), context is added to it.
func (o *Orchestrator) promptHooks(ctx context.Context, input string) (extra string, err error) {
	if o.parentSession != "" {
		return "", nil // a subagent's task is not a person's prompt
	}
	out := o.runHooks(ctx, hooks.Input{Event: hooks.UserPromptSubmit, Prompt: input})
	switch {
	case out.Block:
		return "", fmt.Errorf("%w: %s", ErrPromptBlocked, out.Reason)
	case out.Stop:
		return "", &hookStop{reason: out.StopReason}
	}
	return hookContext(out.Context), nil
}

// preToolHooks runs PreToolUse on an admitted call. It returns the call to
// go on with (re-decoded when a hook changed its input, so it stays a typed,
// checked call), the hooks' permission decision, or a refusal.
func (o *Orchestrator) preToolHooks(ctx context.Context, a *admitted) (c *tools.Call, perm, reason string, refused bool) {
	c = a.call
	out := o.runHooks(ctx, hooks.Input{Event: hooks.PreToolUse, ToolName: c.Name, ToolAliases: c.Tool.Facts().Claude,
		ToolUseID: c.ID, ToolInput: json.RawMessage(c.Raw)})
	switch {
	case out.Stop:
		a.hookStop = out.StopReason
		a.refuse(stoppedResult(out.StopReason))
		return c, "", "", true
	case out.Permission == "deny":
		a.refuse(tools.Failure("blocked by a PreToolUse hook: %s", o.opts.Secrets.Redact(orDefault(out.PermissionReason, "denied"))))
		return c, "", "", true
	}
	if out.UpdatedInput != nil {
		nc := o.decode(chat.ToolCall{ID: c.ID, Name: c.Name, Arguments: string(out.UpdatedInput)})
		if nc.Failure != nil {
			a.refuse(*nc.Failure)
			return c, "", "", true
		}
		a.call, c = nc, nc
	}
	return c, out.Permission, out.PermissionReason, false
}

// postToolHooks runs PostToolUse on a call that ran, or PostToolUseFailure
// on one that failed: what a blocking hook says, and any context, is added
// to the result the model gets. The hooks of a call the person interrupted
// still run (is_interrupt), each bounded by its own timeout.
func (o *Orchestrator) postToolHooks(ctx context.Context, a *admitted, res tools.Result) tools.Result {
	ev := hooks.PostToolUse
	if !res.OK {
		ev = hooks.PostToolUseFailure
	}
	if !o.hasHooks(ev) {
		return res // without encoding the whole result for nobody
	}
	c := a.call
	in := hooks.Input{Event: ev, ToolName: c.Name, ToolAliases: c.Tool.Facts().Claude, ToolUseID: c.ID,
		ToolInput: json.RawMessage(c.Raw)}
	if res.OK {
		in.ToolResponse = toolResponse(res)
	} else {
		in.Error, in.IsInterrupt = failureText(res), ctx.Err() != nil
		ctx = context.WithoutCancel(ctx)
	}
	out := o.runHooks(ctx, in)
	var notes []string
	if out.Block {
		notes = append(notes, string(ev)+" hook: "+out.Reason)
	}
	notes = append(notes, out.Context...)
	if len(notes) > 0 {
		res.Content += "\n\n" + o.opts.Secrets.Redact(strings.Join(notes, "\n"))
	}
	if out.Stop {
		a.hookStop = out.StopReason
	}
	return res
}

// failureText is a failed call's error as PostToolUseFailure tells it: a
// bash call's exit and stderr, another tool's error message.
func failureText(res tools.Result) string {
	if b := res.Bash; b != nil {
		if b.Error != "" {
			return b.Error
		}
		msg := fmt.Sprintf("exit code %d", b.ExitCode)
		if e := strings.TrimSpace(b.Stderr); e != "" {
			msg += "\n" + e
		}
		return msg
	}
	var f struct {
		Error string `json:"error"`
	}
	if json.Unmarshal([]byte(res.Content), &f) == nil && f.Error != "" {
		return f.Error
	}
	return orDefault(strings.TrimSpace(res.Content), res.Summary)
}

// toolResponse is a result as hooks get it: a bash call's typed result,
// another tool's JSON result as it is, or its text.
func toolResponse(res tools.Result) json.RawMessage {
	if res.Bash != nil {
		b, _ := json.Marshal(res.Bash)
		return b
	}
	if c := strings.TrimSpace(res.Content); strings.HasPrefix(c, "{") && json.Valid([]byte(c)) {
		return json.RawMessage(c)
	}
	b, _ := json.Marshal(map[string]any{"ok": res.OK, "output": res.Content})
	return b
}

// stopHooks runs Stop (SubagentStop in a subagent) when the model is done.
// A block makes the model go on, with the hook's reason as its next
// instruction, once per turn: stop_hook_active tells the hook it already
// did, and a second block is not obeyed, so hooks cannot loop a turn.
func (o *Orchestrator) stopHooks(ctx context.Context, ts *turnState) (again bool, err error) {
	ev := hooks.Stop
	if o.parentSession != "" {
		ev = hooks.SubagentStop
	}
	out := o.runHooks(ctx, hooks.Input{Event: ev, StopHookActive: ts.stopHookActive})
	switch {
	case out.Stop:
		return false, &hookStop{reason: out.StopReason}
	case !out.Block:
		return false, nil
	case ts.stopHookActive:
		o.emit(event.Notice{Text: "a " + string(ev) + " hook asked the model to go on again; once per turn, so the turn ends"})
		return false, nil
	}
	ts.stopHookActive = true
	msg := chat.Message{Role: chat.RoleUser, Content: string(ev) + " hook feedback:\n" + o.opts.Secrets.Redact(out.Reason)}
	if err := o.conv.append(ctx, msg); err != nil {
		return false, err
	}
	return true, ctx.Err()
}

// sessionStartHooks runs SessionStart (source: startup, resume, clear,
// compact); their context joins the next input (deliverPendingContext
// for a compaction in a turn). A front end that never announces the
// session gets them before its first turn.
func (o *Orchestrator) sessionStartHooks(ctx context.Context, source string) {
	o.hookStarted = true
	if o.parentSession != "" {
		return
	}
	out := o.runHooks(ctx, hooks.Input{Event: hooks.SessionStart, Source: source})
	o.pendingContext = append(o.pendingContext, out.Context...)
}

// StartSession runs the SessionStart hooks of a new session (source
// startup) unless they ran; an editor calls it once its thread is open, so
// the hooks need not wait for the first prompt.
func (o *Orchestrator) StartSession(ctx context.Context) {
	if !o.hookStarted {
		o.sessionStartHooks(ctx, "startup")
	}
}

// deliverPendingContext appends what SessionStart hooks added as a message
// of its own, in a turn that is already under way.
func (o *Orchestrator) deliverPendingContext(ctx context.Context) error {
	if len(o.pendingContext) == 0 {
		return nil
	}
	msg := chat.Message{Role: chat.RoleUser, Content: strings.TrimPrefix(hookContext(o.pendingContext), "\n\n")}
	o.pendingContext = nil
	return o.conv.append(ctx, msg)
}

// EndSession runs the SessionEnd hooks (reason: clear, prompt_input_exit,
// other); the front end calls it when the person leaves.
func (o *Orchestrator) EndSession(reason string) {
	o.runHooks(context.Background(), hooks.Input{Event: hooks.SessionEnd, Reason: reason})
}

// notifyHooks runs Notification hooks when a person is asked to approve.
// Without a person (headless: no questioner) the approver answers by
// itself, and there is nobody to notify.
func (o *Orchestrator) notifyHooks(ctx context.Context, message string) {
	if !o.attended {
		return
	}
	o.runHooks(ctx, hooks.Input{Event: hooks.Notification, Message: message})
}
