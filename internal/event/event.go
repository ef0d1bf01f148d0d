// Package event holds everything the core reports and the Sink that receives
// it. The orchestrator never writes to a terminal: the REPL renderer, the
// headless printers and tests are sinks.
package event

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/session"
)

// Event is one thing that happened. Kind is its stable name, used as the
// "type" field of stream-json output.
type Event interface{ Kind() string }

// Sink receives events in order. Emit is called from the orchestrator's
// goroutines (tool calls may run concurrently), so a Sink must be safe for
// concurrent use; Emit must not block for long.
type Sink interface{ Emit(Event) }

// SinkFunc adapts a function to a Sink.
type SinkFunc func(Event)

func (f SinkFunc) Emit(e Event) { f(e) }

// Discard drops every event.
var Discard Sink = SinkFunc(func(Event) {})

// RunState is a state of the run state machine: idle → preparing →
// model_running → (tool_running ⇄ awaiting_human) → … → completed |
// failed | aborted.
type RunState string

const (
	StateIdle          RunState = "idle"
	StatePreparing     RunState = "preparing"
	StateModelRunning  RunState = "model_running"
	StateToolRunning   RunState = "tool_running"
	StateAwaitingHuman RunState = "awaiting_human"
	StateCompleted     RunState = "completed"
	StateFailed        RunState = "failed"
	StateAborted       RunState = "aborted"
)

// StateChanged: the run moved from one state to another.
type StateChanged struct {
	RunID string   `json:"run_id"`
	From  RunState `json:"from"`
	To    RunState `json:"to"`
}

// SessionStarted: the session the following events belong to.
type SessionStarted struct {
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
	// Agent is the active agent's name; Mode its mode (build or plan).
	Agent    string   `json:"agent"`
	Mode     string   `json:"mode"`
	Cwd      string   `json:"cwd"`
	Tools    []string `json:"tools"`
	Resumed  bool     `json:"resumed,omitempty"`
	Messages int      `json:"messages,omitempty"`
}

// ModeChanged: the active agent (and so maybe the mode) changed.
type ModeChanged struct {
	Agent string `json:"agent"`
	Mode  string `json:"mode"`
}

// ModelChanged: the next model call uses another model.
type ModelChanged struct {
	Model string `json:"model"`
}

// TextDelta: a chunk of answer text, as it streamed.
type TextDelta struct {
	Text string `json:"text"`
}

// ReasoningDelta: a chunk of reasoning, as it streamed.
type ReasoningDelta struct {
	Text string `json:"text"`
}

// StreamReset: a retried model call streamed something different from the
// failed attempt; what was shown of this call is void.
type StreamReset struct {
	ModelCallIndex int `json:"model_call_index"`
}

// AssistantMessage: the committed assistant message of one model call.
type AssistantMessage struct {
	ModelCallIndex int          `json:"model_call_index"`
	Message        chat.Message `json:"message"`
	Usage          chat.Usage   `json:"usage"`
	// StopReason is the provider's reason the call ended, as it gave it
	// ("stop", "length", "end_turn", "max_tokens", "refusal", …), if any.
	StopReason string `json:"stop_reason,omitempty"`
}

// ToolStarted: a tool call begins (after approval).
type ToolStarted struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	// ToolKind says what the call does (read, edit, execute, …): the
	// tool's facts, or what Prepare made of the call.
	ToolKind chat.ToolKind `json:"kind,omitempty"`
	Summary  string        `json:"summary"`
	// Args are the arguments as the model sent them.
	Args string `json:"args"`
	// Paths are the files the call names, workspace-relative.
	Paths []string `json:"paths,omitempty"`
}

// ToolFinished: a tool call ended (also for denied, failed and malformed
// calls, which never started).
type ToolFinished struct {
	CallID   string        `json:"call_id"`
	Name     string        `json:"name"`
	Args     string        `json:"args"`
	OK       bool          `json:"ok"`
	Summary  string        `json:"summary"`
	Diff     string        `json:"diff,omitempty"`
	Result   string        `json:"result"`
	Duration time.Duration `json:"duration_ns"`
	// SandboxRefused: the command failed the way coder's sandbox refuses.
	SandboxRefused bool `json:"sandbox_refused,omitempty"`
}

// ApprovalRequested: a tool call needs a person's decision; it is emitted
// when the approver is asked.
type ApprovalRequested struct {
	CallID  string   `json:"call_id"`
	Tool    string   `json:"tool"`
	Subject string   `json:"subject"`
	Reasons []string `json:"reasons"`
	Danger  bool     `json:"danger"`
	// Preview is the change the call would make (a unified diff), if known.
	Preview string `json:"preview,omitempty"`
}

// ApprovalAnswered: the decision on an ApprovalRequested: approved,
// always, denied or cancelled.
type ApprovalAnswered struct {
	CallID   string `json:"call_id"`
	Decision string `json:"decision"`
	Feedback string `json:"feedback,omitempty"`
}

// ContextUpdated: the size of what the next model call would send.
type ContextUpdated struct {
	Tokens int `json:"tokens"`
	Limit  int `json:"limit"`
}

// UsageUpdated: token usage of the latest model call and the session total,
// and what the session's calls cost (priced from the model catalog;
// CostKnown is false when some model's price is unknown, and CostUSD then
// counts the priced ones).
type UsageUpdated struct {
	Call      chat.Usage `json:"call"`
	Total     chat.Usage `json:"total"`
	CostUSD   float64    `json:"cost_usd"`
	CostKnown bool       `json:"cost_known"`
}

// Notice: something a person should know (retries, fallbacks, mode changes).
type Notice struct {
	Text string `json:"text"`
}

// Error: something failed; the run may or may not go on.
type Error struct {
	Message string `json:"message"`
}

// CommandOutput: the result of a / or ! command, already formatted.
type CommandOutput struct {
	Command string `json:"command"`
	Text    string `json:"text"`
	Block   string `json:"block,omitempty"` // "COMMAND" for ! blocks
}

// TodoUpdated: the todo list changed.
type TodoUpdated struct {
	Todos []session.Todo `json:"todos"`
}

// Subagent wraps an event of a subagent (the task tool) so a consumer can
// tell it from the parent's.
type Subagent struct {
	// ID tells concurrent subagents apart; Agent is the subagent's kind.
	ID    string `json:"subagent_id"`
	Agent string `json:"agent"`
	Event Event  `json:"event"`
}

// Compacted: old history was pruned and, if Summarized, summarised.
type Compacted struct {
	TokensBefore int  `json:"tokens_before"`
	TokensAfter  int  `json:"tokens_after"`
	Summarized   bool `json:"summarized"`
}

// HookRan: one of the person's hook commands ran at Event (for a tool
// event, on the call of Tool). Outcome is what it decided (ok, context
// added, blocked, denied, ask, allowed, stopped, error, timed out); Reason
// why; Output what it printed for the person.
type HookRan struct {
	Event   string `json:"event"`
	Tool    string `json:"tool,omitempty"`
	Command string `json:"command"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
	Output  string `json:"output,omitempty"`
}

// TurnStarted: a turn began with Input, as the person (or the caller)
// gave it.
type TurnStarted struct {
	RunID string `json:"run_id"`
	Input string `json:"input"`
}

// TurnFinished: a turn ended, successfully or not.
type TurnFinished struct {
	RunID    string        `json:"run_id"`
	State    RunState      `json:"state"`
	Result   string        `json:"result"`
	Reason   string        `json:"reason,omitempty"`
	Steps    int           `json:"num_turns"`
	Usage    chat.Usage    `json:"usage"`
	Duration time.Duration `json:"duration_ns"`
	// Verification is the orchestrator's own verification line, written
	// from what it observed; empty when nothing was edited.
	Verification string `json:"verification,omitempty"`
}

func (StateChanged) Kind() string      { return "state" }
func (SessionStarted) Kind() string    { return "session" }
func (TextDelta) Kind() string         { return "text" }
func (ReasoningDelta) Kind() string    { return "reasoning" }
func (StreamReset) Kind() string       { return "stream_reset" }
func (AssistantMessage) Kind() string  { return "assistant" }
func (ToolStarted) Kind() string       { return "tool_start" }
func (ToolFinished) Kind() string      { return "tool_done" }
func (ApprovalRequested) Kind() string { return "approval" }
func (ApprovalAnswered) Kind() string  { return "approval_answer" }
func (ModeChanged) Kind() string       { return "mode" }
func (ModelChanged) Kind() string      { return "model" }
func (ContextUpdated) Kind() string    { return "context" }
func (UsageUpdated) Kind() string      { return "usage" }
func (Notice) Kind() string            { return "notice" }
func (Error) Kind() string             { return "error" }
func (CommandOutput) Kind() string     { return "command" }
func (TurnStarted) Kind() string       { return "turn_start" }
func (TurnFinished) Kind() string      { return "turn_done" }
func (TodoUpdated) Kind() string       { return "todos" }
func (Subagent) Kind() string          { return "subagent" }
func (Compacted) Kind() string         { return "compacted" }
func (HookRan) Kind() string           { return "hook" }

// Line is how every front end shows a hook run in one line:
// "[hook] PreToolUse bash: blocked — reason".
func (h HookRan) Line() string {
	s := "[hook] " + h.Event
	if h.Tool != "" {
		s += " " + h.Tool
	}
	s += ": " + h.Outcome
	if h.Reason != "" {
		s += " — " + strings.ReplaceAll(strings.TrimSpace(h.Reason), "\n", " / ")
	}
	return s
}

// MarshalJSON keeps the wrapped event's kind as its "type".
func (s Subagent) MarshalJSON() ([]byte, error) {
	inner, err := json.Marshal(s.Event)
	if err != nil {
		return nil, err
	}
	if s.Event != nil && len(inner) > 1 && inner[0] == '{' {
		kind, _ := json.Marshal(s.Event.Kind())
		sep := ","
		if string(inner) == "{}" {
			sep = ""
		}
		inner = append(append([]byte(`{"type":`), kind...), append([]byte(sep), inner[1:]...)...)
	}
	return json.Marshal(struct {
		ID    string          `json:"subagent_id"`
		Agent string          `json:"agent"`
		Event json.RawMessage `json:"event"`
	}{s.ID, s.Agent, inner})
}
