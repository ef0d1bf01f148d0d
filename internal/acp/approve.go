package acp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/tools"
)

// The permission options of an approval: coder's y / always / n.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optReject      = "reject_once"
	optDismiss     = "dismiss"
)

// approvalRequest is the tool call an approval asks about, announced as a
// pending tool_call first when the editor has not seen it yet.
func (m *mapper) approvalRequest(r permission.Request) (call sdk.ToolCallUpdate, announce []sdk.SessionUpdate) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := r.Call
	st := m.open(callKey(approvalScope, c.ID), c.ID)
	st.name, st.kind, st.title = c.Name, toolKind(string(c.Kind)), title(c.Name, c.Summary)
	locs := m.callLocations(c)
	if !st.announced {
		st.announced = true
		announce = one(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
			ToolCallId: sdk.ToolCallId(st.id), Title: st.title, Kind: st.kind,
			Status: sdk.ToolCallStatusPending, Locations: locs, RawInput: rawJSON(c.Raw),
		}})
	}
	content := []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(approvalText(r)))}
	if r.Preview != "" {
		diffs, _ := diffContent(r.Preview, m.workspace)
		content = append(content, diffs...)
	}
	return sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(st.id), Title: sdk.Ptr(st.title), Kind: sdk.Ptr(st.kind),
		Status: sdk.Ptr(sdk.ToolCallStatusPending), Content: content, Locations: locs}, announce
}

// approvalText is why the call needs approval, as the REPL lists it under
// the call (the tool call's title already names the call).
func approvalText(r permission.Request) string {
	if len(r.Reasons) == 0 {
		return r.Call.Name + ": " + r.Call.Subject
	}
	return "- " + strings.Join(r.Reasons, "\n- ")
}

// permissionOptions are y / always / n; "always" only where the REPL offers
// it (a policy ask that no danger check raised).
func permissionOptions(r permission.Request) []sdk.PermissionOption {
	opts := []sdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce}}
	if r.PolicyAsk && !r.Danger {
		name := "Always allow"
		if r.Call.Name == tools.Bash {
			name = "Always allow this command"
		}
		opts = append(opts, sdk.PermissionOption{OptionId: optAllowAlways, Name: name, Kind: sdk.PermissionOptionKindAllowAlways})
	}
	return append(opts, sdk.PermissionOption{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
}

// replyFor turns the editor's choice into coder's answer. A cancelled
// outcome is the editor cancelling the prompt: like Esc, not "no".
func replyFor(o sdk.RequestPermissionOutcome) (permission.Reply, error) {
	if o.Selected == nil {
		return permission.Reply{}, context.Canceled
	}
	switch string(o.Selected.OptionId) {
	case optAllowOnce:
		return permission.Reply{Approved: true}, nil
	case optAllowAlways:
		return permission.Reply{Approved: true, Always: true}, nil
	}
	return permission.Reply{}, nil
}

// approver asks the editor (session/request_permission).
type approver struct{ s *acpSession }

// Approve implements permission.Approver.
func (a approver) Approve(ctx context.Context, r permission.Request) (reply permission.Reply, err error) {
	defer a.s.srv.guard("approval", &err)
	if err := ctx.Err(); err != nil {
		return permission.Reply{}, err
	}
	call, announce := a.s.m.approvalRequest(r)
	a.s.sendAll(announce)
	opts := permissionOptions(r)
	resp, err := a.s.srv.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(a.s.sessionID()), ToolCall: call, Options: opts,
	})
	switch {
	case ctx.Err() != nil:
		return permission.Reply{}, ctx.Err()
	case err != nil:
		a.s.srv.log.Warn("permission request failed", "error", err)
		return permission.Reply{Feedback: "the editor could not ask the user: " + errorText(err)}, nil
	}
	if r.Danger && resp.Outcome.Selected != nil && string(resp.Outcome.Selected.OptionId) == optAllowAlways {
		return permission.Reply{}, nil // not offered: a client must not widen a danger request
	}
	reply, err = replyFor(resp.Outcome)
	if err != nil {
		// The editor cancelled the prompt; its session/cancel may still be
		// on the way, and the turn must not go on meanwhile.
		a.s.cancelTurn()
	}
	return reply, err
}

// questioner puts the question tool's and exit_plan_mode's questions to
// the editor, one permission request per question, the options as buttons.
type questioner struct{ s *acpSession }

// questionCall is the call the questions belong to (announcing one when
// none is running), whether it is exit_plan_mode, and the plan it showed.
func (m *mapper) questionCall() (id string, exitPlan bool, plan string, announce []sdk.SessionUpdate) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if st := m.question; st != nil {
		return st.id, st.name == tools.ExitPlanMode, m.plan, nil
	}
	id = m.newID("question")
	return id, false, "", one(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: sdk.ToolCallId(id), Title: "question", Kind: sdk.ToolKindOther, Status: sdk.ToolCallStatusPending,
	}})
}

// Ask implements orchestrator.Questioner.
func (q questioner) Ask(ctx context.Context, qs []orchestrator.Question) (answers []string, err error) {
	defer q.s.srv.guard("question", &err)
	id, exitPlan, plan, announce := q.s.m.questionCall()
	q.s.sendAll(announce)
	for i, qu := range qs {
		body := questionText(qu, i, len(qs))
		if exitPlan && plan != "" {
			body = plan + "\n\n" + body
		}
		resp, err := q.s.srv.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
			SessionId: sdk.SessionId(q.s.sessionID()),
			ToolCall: sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(id), Title: sdk.Ptr(qu.Question),
				Status:  sdk.Ptr(sdk.ToolCallStatusPending),
				Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(body))}},
			Options: questionOptions(qu, i, exitPlan),
		})
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			q.s.srv.log.Warn("question request failed", "error", err)
			return nil, orchestrator.ErrQuestionsCancelled
		case resp.Outcome.Selected == nil:
			q.s.cancelTurn() // as in Approve
			return nil, context.Canceled
		}
		answer, ok := optionLabel(qu, i, string(resp.Outcome.Selected.OptionId))
		if !ok {
			return nil, orchestrator.ErrQuestionsCancelled
		}
		answers = append(answers, answer)
	}
	return answers, nil
}

// questionText is the question as the REPL shows it: options numbered,
// the first recommended, descriptions after " — ".
func questionText(q orchestrator.Question, i, n int) string {
	var b strings.Builder
	if n > 1 {
		fmt.Fprintf(&b, "[Question %d/%d] ", i+1, n)
	}
	b.WriteString(q.Question)
	for j, o := range q.Options {
		fmt.Fprintf(&b, "\n%d. %s", j+1, o.Label)
		if j == 0 {
			b.WriteString(" (Recommended)")
		}
		if o.Description != "" {
			b.WriteString(" — " + o.Description)
		}
	}
	return b.String()
}

// questionOptions: every option is an "allow" button; a question also
// gets Dismiss (Esc at the REPL). exit_plan_mode's last option, keep
// planning, is its "reject".
func questionOptions(q orchestrator.Question, i int, exitPlan bool) []sdk.PermissionOption {
	var opts []sdk.PermissionOption
	for j, o := range q.Options {
		kind := sdk.PermissionOptionKindAllowOnce
		if exitPlan && j == len(q.Options)-1 {
			kind = sdk.PermissionOptionKindRejectOnce
		}
		opts = append(opts, sdk.PermissionOption{OptionId: sdk.PermissionOptionId(optionID(i, j)), Name: o.Label, Kind: kind})
	}
	if !exitPlan {
		opts = append(opts, sdk.PermissionOption{OptionId: optDismiss, Name: "Dismiss", Kind: sdk.PermissionOptionKindRejectOnce})
	}
	return opts
}

func optionID(question, option int) string {
	return "q" + strconv.Itoa(question) + "-" + strconv.Itoa(option)
}

// optionLabel is the answer an option id stands for; ok is false for
// Dismiss or an id that was not offered.
func optionLabel(q orchestrator.Question, i int, id string) (string, bool) {
	for j, o := range q.Options {
		if optionID(i, j) == id {
			return o.Label, true
		}
	}
	return "", false
}

// errorText is an SDK error's message, without its JSON wrapping.
func errorText(err error) string {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		if m, ok := re.Data.(map[string]any); ok {
			if s, ok := m["error"].(string); ok && s != "" {
				return re.Message + ": " + s
			}
		}
		return re.Message
	}
	return err.Error()
}
