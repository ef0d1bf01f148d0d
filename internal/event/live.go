package event

import "time"

// Progress phases: things the core does that take a while and that no
// other event names while they last.
const (
	PhaseCompacting = "compacting"
	PhaseVerifying  = "verifying"
	PhaseRetrying   = "retrying"
)

// Progress: the core started a phase a front end shows as a live status
// ("compacting", "verifying: go test ./...", "retrying in 4s"). It says
// nothing when the phase ends: the next event does.
type Progress struct {
	Phase string `json:"phase"`
	// Detail names what the phase works on (the verify command, the error
	// being retried).
	Detail string `json:"detail,omitempty"`
	// Delay is how long a retry waits before its next attempt; Attempt is
	// that attempt's number (1 for the first retry).
	Delay   time.Duration `json:"delay_ns,omitempty"`
	Attempt int           `json:"attempt,omitempty"`
}

// Output streams of a running command.
const (
	Stdout = "stdout"
	Stderr = "stderr"
)

// ToolOutput: a chunk of a running tool's output, as the process wrote it
// (bash). What the model receives is in ToolFinished; this is for people
// watching. Chunks may split lines and UTF-8 sequences.
type ToolOutput struct {
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	Stream string `json:"stream"`
	Text   string `json:"text"`
}

// ToolTerminal: a running tool's command runs in the front end's own
// terminal TerminalID (an editor's, under coder acp), which shows its
// output as it comes; what the model receives is still in ToolFinished.
type ToolTerminal struct {
	CallID     string `json:"call_id"`
	Name       string `json:"name"`
	TerminalID string `json:"terminal_id"`
}

// UserMessage: a message a person sent while a turn was running joined it
// (steering): it was appended to the history before the next model call.
type UserMessage struct {
	Text string `json:"text"`
}

// Replay is a compact account of a session's history, for a front end to
// show where a resumed session stands: inputs, answers and tool calls, no
// tool output.
type Replay struct {
	SessionID string        `json:"session_id"`
	Title     string        `json:"title,omitempty"`
	Messages  int           `json:"messages"`
	Entries   []ReplayEntry `json:"entries"`
	// Omitted counts older entries left out.
	Omitted int `json:"omitted,omitempty"`
}

// Replay entry roles.
const (
	ReplayUser   = "user"
	ReplayAnswer = "answer"
	ReplayTool   = "tool"
)

// ReplayEntry is one line of a Replay: a user input, an answer, or a tool
// call with its summary and whether it succeeded.
type ReplayEntry struct {
	Role        string `json:"role"`
	Text        string `json:"text"`
	Tool        string `json:"tool,omitempty"`
	OK          bool   `json:"ok,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
}

// Attached: the @path references of an input attached these files and
// directories (workspace-relative) to its request; references that could
// not be attached are told as notices.
type Attached struct {
	Paths []string `json:"paths"`
}

func (Attached) Kind() string     { return "attached" }
func (Progress) Kind() string     { return "progress" }
func (ToolOutput) Kind() string   { return "tool_output" }
func (ToolTerminal) Kind() string { return "tool_terminal" }
func (UserMessage) Kind() string  { return "user_message" }
func (Replay) Kind() string       { return "replay" }
