package acp

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

// mapper turns the core's events into session updates for one session. It
// owns the tool-call bookkeeping: coder's call ids are unique only within
// one model message (some servers reuse "call_0"), ACP's within a session,
// so each call gets an ACP id of its own while it is open.
type mapper struct {
	mu        sync.Mutex
	workspace string
	// decode shows a call known only by name and arguments (a refused call,
	// a stored one) as a typed call; nil leaves such calls plain.
	decode func(chat.ToolCall) *tools.Call
	calls  map[string]*callState // open calls by key (see callKey)
	used   map[string]bool       // ACP ids handed out in this session
	// lastStop is the provider's stop reason of the latest model call.
	lastStop string
	// question is the running question or exit_plan_mode call, whose
	// questions go to the editor as permission requests.
	question *callState
	// plan is the plan exit_plan_mode showed, sent with its question.
	plan  string
	usage usageBook
}

// callState is one open tool call.
type callState struct {
	id, name string
	kind     sdk.ToolKind
	title    string
	// announced: a tool_call was sent; what follows are tool_call_updates.
	announced bool
	// terminal is the editor's terminal the call's command runs in.
	terminal string
}

func newMapper(workspace string, decode func(chat.ToolCall) *tools.Call) *mapper {
	return &mapper{workspace: workspace, decode: decode, calls: map[string]*callState{}, used: map[string]bool{}}
}

// callKey names an open call: subagents' calls are scoped by the subagent,
// and a call first seen in an approval request waits under its own prefix
// until it starts (approvals do not say whose call they are).
func callKey(scope, id string) string { return scope + "\x00" + id }

const approvalScope = "approval"

// updates maps one event; most events map to nothing.
func (m *mapper) updates(e event.Event) []sdk.SessionUpdate {
	m.mu.Lock()
	defer m.mu.Unlock()
	if u := m.usage.note(e); u != nil {
		return u
	}
	switch e := e.(type) {
	case event.TextDelta:
		return one(sdk.UpdateAgentMessageText(e.Text))
	case event.ReasoningDelta:
		return one(sdk.UpdateAgentThoughtText(e.Text))
	case event.StreamReset:
		return one(sdk.UpdateAgentMessageText("\n\n_(the model call was retried; the text above is void)_\n\n"))
	case event.AssistantMessage:
		m.lastStop = e.StopReason
	case event.ToolStarted:
		return m.toolStarted("", "", e)
	case event.ToolFinished:
		return m.toolFinished("", "", e)
	case event.ToolTerminal:
		return m.toolTerminal("", e)
	case event.Subagent:
		return m.subagent(e)
	case event.TodoUpdated:
		return one(planUpdate(e.Todos))
	case event.ModeChanged:
		return one(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(e.Agent)}})
	case event.CommandOutput:
		return one(sdk.UpdateAgentMessageText(m.commandText(e)))
	case event.Notice:
		return one(sdk.UpdateAgentMessageText(notice(e.Text)))
	case event.HookRan:
		// A thought: the editor shows it with the agent's work, apart
		// from the answer.
		return one(sdk.UpdateAgentThoughtText(hookText(e)))
	case event.Compacted:
		return one(sdk.UpdateAgentMessageText(notice(fmt.Sprintf("context compacted: %d → %d tokens", e.TokensBefore, e.TokensAfter))))
	case event.TurnFinished:
		if e.Verification != "" {
			return one(sdk.UpdateAgentMessageText("\n\n" + e.Verification + "\n"))
		}
	}
	// Errors are not mapped: a failed prompt answers with a JSON-RPC error
	// carrying the same message. Approvals are the approver's.
	return nil
}

func one(u sdk.SessionUpdate) []sdk.SessionUpdate { return []sdk.SessionUpdate{u} }

// subagent maps a subagent's tool calls, titled with the subagent's name;
// its text and reasoning stay inside the task call.
func (m *mapper) subagent(e event.Subagent) []sdk.SessionUpdate {
	prefix := "[" + e.Agent + "] "
	switch in := e.Event.(type) {
	case event.ToolStarted:
		return m.toolStarted("sub:"+e.ID, prefix, in)
	case event.ToolFinished:
		return m.toolFinished("sub:"+e.ID, prefix, in)
	case event.ToolTerminal:
		return m.toolTerminal("sub:"+e.ID, in)
	case event.TodoUpdated:
		return nil // the parent's plan is the one the editor shows
	}
	return nil
}

func (m *mapper) commandText(e event.CommandOutput) string {
	text := strings.TrimRight(e.Text, "\n")
	switch e.Block {
	case "COMMAND": // a ! command's output block
		f := fence(text)
		return "\n" + f + "\n" + text + "\n" + f + "\n"
	case "PLAN":
		m.plan = text
		return "\n\n" + text + "\n\n"
	}
	return text + "\n"
}

// notice is a Markdown quote: set apart from the model's own words.
func hookText(e event.HookRan) string {
	s := e.Line() + "\n"
	if out := strings.TrimSpace(e.Output); out != "" {
		s += out + "\n"
	}
	return s
}

func notice(text string) string {
	return "\n\n> " + strings.ReplaceAll(strings.TrimSpace(text), "\n", "\n> ") + "\n\n"
}

// open returns the state of the call under key, creating it (with a fresh
// ACP id) if there is none.
func (m *mapper) open(key, coderID string) *callState {
	if st := m.calls[key]; st != nil {
		return st
	}
	st := &callState{id: m.newID(coderID)}
	m.calls[key] = st
	return st
}

// newID is coderID, or coderID with a suffix when this session used it.
func (m *mapper) newID(coderID string) string {
	if coderID == "" {
		coderID = "call"
	}
	id := coderID
	for n := 2; m.used[id]; n++ {
		id = fmt.Sprintf("%s#%d", coderID, n)
	}
	m.used[id] = true
	return id
}

// adopt returns the state a call started or finished under key, taking over
// the one its approval request opened.
func (m *mapper) adopt(key, coderID string) *callState {
	if st := m.calls[key]; st != nil {
		return st
	}
	if st := m.calls[callKey(approvalScope, coderID)]; st != nil {
		delete(m.calls, callKey(approvalScope, coderID))
		m.calls[key] = st
		return st
	}
	return m.open(key, coderID)
}

func (m *mapper) toolStarted(scope, prefix string, e event.ToolStarted) []sdk.SessionUpdate {
	st := m.adopt(callKey(scope, e.CallID), e.CallID)
	st.name, st.kind = e.Name, toolKind(string(e.ToolKind))
	st.title = prefix + title(e.Name, e.Summary)
	if scope == "" && (e.Name == tools.Question || e.Name == tools.ExitPlanMode) {
		m.question = st
	}
	locs := m.locations(e.Paths)
	if st.announced {
		return one(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
			ToolCallId: sdk.ToolCallId(st.id), Status: sdk.Ptr(sdk.ToolCallStatusInProgress),
			Title: sdk.Ptr(st.title), Kind: sdk.Ptr(st.kind), Locations: locs,
		}})
	}
	st.announced = true
	return one(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: sdk.ToolCallId(st.id), Title: st.title, Kind: st.kind,
		Status: sdk.ToolCallStatusInProgress, Locations: locs, RawInput: rawJSON(e.Args),
	}})
}

func (m *mapper) toolFinished(scope, prefix string, e event.ToolFinished) []sdk.SessionUpdate {
	key := callKey(scope, e.CallID)
	st := m.adopt(key, e.CallID)
	delete(m.calls, key)
	if m.question == st {
		m.question, m.plan = nil, ""
	}
	content, locs := finishedContent(e, m.workspace)
	if st.terminal != "" {
		content = terminalContent(st.terminal, e.Result)
	}
	status := sdk.ToolCallStatusCompleted
	if !e.OK {
		status = sdk.ToolCallStatusFailed
	}
	if st.announced {
		return one(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
			ToolCallId: sdk.ToolCallId(st.id), Status: sdk.Ptr(status), Content: content, Locations: locs,
		}})
	}
	// Never started: refused before it could run (a disabled tool, the
	// policy, malformed arguments). Shown as the call it would have been.
	kind, summary := sdk.ToolKindOther, ""
	if c := m.decodeCall(e.CallID, e.Name, e.Args); c != nil {
		kind, summary = toolKind(string(c.Kind)), c.Summary
		if len(locs) == 0 {
			locs = m.callLocations(c)
		}
	}
	return one(sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: sdk.ToolCallId(st.id), Title: prefix + title(e.Name, summary), Kind: kind,
		Status: status, Content: content, Locations: locs, RawInput: rawJSON(e.Args),
	}})
}

// toolTerminal shows the editor's terminal in the call whose command runs
// there: the editor streams its output as it comes.
func (m *mapper) toolTerminal(scope string, e event.ToolTerminal) []sdk.SessionUpdate {
	st := m.calls[callKey(scope, e.CallID)]
	if st == nil || !st.announced {
		return nil // not started: nothing shows it yet
	}
	st.terminal = e.TerminalID
	return one(sdk.SessionUpdate{ToolCallUpdate: &sdk.SessionToolCallUpdate{
		ToolCallId: sdk.ToolCallId(st.id), Content: []sdk.ToolCallContent{sdk.ToolTerminalRef(e.TerminalID)},
	}})
}

func (m *mapper) decodeCall(id, name, args string) *tools.Call {
	if m.decode == nil || name == "" {
		return nil
	}
	c := m.decode(chat.ToolCall{ID: id, Name: name, Arguments: args})
	if c == nil || c.Tool == nil {
		return nil
	}
	return c
}

// finishedContent is what the editor shows of a finished call: a bash
// call's output, an edit's diff, or the one-line summary.
func finishedContent(e event.ToolFinished, workspace string) ([]sdk.ToolCallContent, []sdk.ToolCallLocation) {
	if e.Name == tools.Bash {
		if c, ok := bashContent(e.Result); ok {
			return c, nil
		}
	}
	if e.OK && e.Diff != "" {
		return diffContent(e.Diff, workspace)
	}
	if e.Summary == "" {
		return nil, nil
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(e.Summary))}, nil
}

// title is a call's one line: the command of a bash call, else the tool and
// what it works on.
func title(name, summary string) string {
	switch {
	case summary == "":
		return name
	case name == tools.Bash:
		return summary
	}
	return name + " " + summary
}

// toolKind maps a tools.Kind (which uses ACP's words) to ACP's.
func toolKind(k string) sdk.ToolKind {
	switch sdk.ToolKind(k) {
	case sdk.ToolKindRead, sdk.ToolKindEdit, sdk.ToolKindDelete, sdk.ToolKindMove, sdk.ToolKindSearch,
		sdk.ToolKindExecute, sdk.ToolKindThink, sdk.ToolKindFetch, sdk.ToolKindSwitchMode:
		return sdk.ToolKind(k)
	}
	return sdk.ToolKindOther
}

func (m *mapper) locations(paths []string) []sdk.ToolCallLocation {
	var out []sdk.ToolCallLocation
	for _, p := range paths {
		out = append(out, sdk.ToolCallLocation{Path: absPath(p, m.workspace)})
	}
	return out
}

func (m *mapper) callLocations(c *tools.Call) []sdk.ToolCallLocation {
	var out []sdk.ToolCallLocation
	for _, p := range c.Paths {
		out = append(out, sdk.ToolCallLocation{Path: p.Abs})
	}
	return out
}

// rawJSON passes the model's arguments through when they are JSON.
func rawJSON(s string) any {
	if !json.Valid([]byte(s)) {
		return nil
	}
	return json.RawMessage(s)
}

// planUpdate is the todo list as the editor's plan.
func planUpdate(todos []session.Todo) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(todos))
	for _, td := range todos {
		status := sdk.PlanEntryStatusPending
		switch td.Status {
		case session.TodoInProgress:
			status = sdk.PlanEntryStatusInProgress
		case session.TodoDone:
			status = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: td.Content, Priority: sdk.PlanEntryPriorityMedium, Status: status})
	}
	return sdk.UpdatePlan(entries...)
}

// beginTurn forgets the previous turn's stop reason and tokens.
func (m *mapper) beginTurn() {
	m.mu.Lock()
	m.lastStop, m.usage.turn = "", chat.Usage{}
	m.mu.Unlock()
}

// stopReason is the provider's stop reason of the turn's last model call,
// and the tokens the turn used.
func (m *mapper) stopReason() (string, chat.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lastStop, m.usage.turn
}
