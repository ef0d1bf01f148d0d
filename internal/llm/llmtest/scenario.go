// Package llmtest is the scripted fake LLM server used by coder's tests. It is
// the project's only test double for model providers: instead of mocking the
// provider interface it speaks the real wire protocols (OpenAI Chat
// Completions streaming, OpenAI Responses streaming and Anthropic Messages
// streaming) over loopback HTTP/SSE, so the production HTTP clients and
// stream parsers are what the tests exercise.
//
// A Scenario is a list of Steps, one per model call. A step is served to
// completion at most once; faults make individual attempts fail so the retry
// path sees the same step again, exactly as a real retry of one model call
// would.
//
// Typical use:
//
//	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
//		llmtest.Calls(llmtest.Call("read_file", `{"path":"go.mod"}`)),
//		{Text: "done", Faults: []llmtest.Fault{{Kind: llmtest.FaultStatus, Status: 429, RetryAfter: "1"}}},
//	}})
//	// point the provider at srv.OpenAIBaseURL() or srv.URL(), run the agent, then
//	// inspect srv.Requests()[i].Messages(), .ToolResults(), .System(), ...
package llmtest

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/coder-agent/coder/internal/chat"
)

// Protocol names, as recorded in Request.Protocol.
const (
	ProtocolOpenAI    = "openai"
	ProtocolAnthropic = "anthropic"
	ProtocolResponses = "responses" // OpenAI's Responses API
)

// Scenario is the script for one server.
type Scenario struct {
	Steps []Step
	// Repeat keeps serving the last step forever once the steps run out (for
	// step-limit tests). Without it, a request past the end gets a 500 whose
	// message says "scenario exhausted", so an agent that calls the model
	// more often than scripted fails loudly.
	Repeat bool
	// Lean keeps no request bodies or headers in Requests(): long benchmarks
	// would otherwise hold every request ever sent.
	Lean bool
	// Models is what GET /v1/models lists; empty means DefaultModels.
	Models []string
}

// Step is one scripted model response, delivered in the protocol of whichever
// endpoint is called.
type Step struct {
	Reasoning string
	Text      string
	ToolCalls []ToolCall
	// Usage is reported at the end of the stream. Zero means "estimate from
	// sizes" so every response carries plausible, non-zero numbers.
	// InputTokens counts input NOT read from cache: on the OpenAI wire
	// prompt_tokens is InputTokens+CacheReadTokens (OpenAI's prompt_tokens
	// includes cached tokens); on the Anthropic wire input_tokens is
	// InputTokens and the cache fields are sent separately.
	Usage chat.Usage
	// ChunkSize splits reasoning, text and tool arguments into pieces of at
	// most this many bytes (never splitting a UTF-8 character), so parsers
	// must reassemble. Default DefaultChunkSize.
	ChunkSize int
	// TokenDelay is slept before every event after the first ("slow tokens").
	TokenDelay time.Duration
	// OmitToolIndex imitates OpenAI-compatible servers that leave "index"
	// out of tool_call deltas: every delta then carries the call's id instead.
	OmitToolIndex bool
	// Faults are applied to successive attempts at this step: attempt 1 gets
	// Faults[0], attempt 2 Faults[1], ...; later attempts are served normally.
	Faults []Fault
	// AlwaysFail repeats the last fault on every attempt after the faults run
	// out, for permanent failures (e.g. a 401 that no retry can fix).
	AlwaysFail bool
	// Check validates each incoming request for this step. An error is
	// answered with a 400 carrying its message and recorded in
	// Request.CheckErr; NewServer also fails the test at cleanup.
	Check func(Request) error
	// StopReason overrides the finish reason. Default: "tool_calls" /
	// "tool_use" when there are tool calls, else "stop" / "end_turn";
	// "completed" on the Responses API, where another value is the reason
	// of an incomplete response.
	StopReason string
	// Truncated ends the step as cut by the output limit, in each
	// protocol's words: finish_reason "length", stop_reason "max_tokens",
	// a response incomplete for "max_output_tokens".
	Truncated bool
}

// ToolCall is one scripted tool invocation. Args is sent verbatim as the
// arguments JSON text (it may be deliberately malformed).
type ToolCall struct {
	// ID defaults to "call_<step>_<i>" (OpenAI) or "toolu_<step>_<i>"
	// (Anthropic), so tests can predict it.
	ID   string
	Name string
	Args string
}

// DefaultChunkSize is small so that every non-trivial string arrives split.
const DefaultChunkSize = 7

// FaultKind says how an attempt fails.
type FaultKind string

const (
	// FaultStatus replies Status (default 500) with the protocol's error JSON
	// and the Retry-After header when RetryAfter is set.
	FaultStatus FaultKind = "status"
	// FaultContextOverflow replies 400 with the protocol's real "context
	// length exceeded" error body.
	FaultContextOverflow FaultKind = "context_overflow"
	// FaultCut sends AfterChunks events of the real stream, then drops the
	// connection without the chunked-encoding terminator: the client reads
	// an unexpected EOF. The cut never falls after the finish/usage events.
	FaultCut FaultKind = "cut"
	// FaultMalformed sends AfterChunks good events, then one whose data is
	// broken JSON, then cuts as FaultCut does (so the attempt fails whether
	// or not the client notices the bad line).
	FaultMalformed FaultKind = "malformed"
	// FaultStall sends AfterChunks events, then sends nothing until the
	// client goes away or the server closes (idle-timeout tests).
	FaultStall FaultKind = "stall"
	// FaultKeepAlive sends AfterChunks events, then only the protocol's
	// keep-alives (comments, empty data, Anthropic pings) every Every
	// (default 20ms) until the client goes away or the server closes: a
	// server that is alive but never answers.
	FaultKeepAlive FaultKind = "keep_alive"
	// FaultStreamError sends AfterChunks events, then the protocol's
	// in-stream error event (Anthropic "event: error", OpenAI a data line
	// holding {"error":...}) and ends the response without a terminator.
	FaultStreamError FaultKind = "stream_error"
)

// Fault makes one attempt fail.
type Fault struct {
	Kind FaultKind
	// Status is the HTTP status for FaultStatus / FaultContextOverflow. For
	// FaultStreamError it picks the error type (e.g. 529 → overloaded_error).
	Status int
	// RetryAfter is sent verbatim as the Retry-After header ("2", or an
	// HTTP date).
	RetryAfter string
	// AfterChunks is how many SSE events precede a stream fault.
	AfterChunks int
	// Message overrides the error message.
	Message string
	// Every is the gap between keep-alives for FaultKeepAlive.
	Every time.Duration
}

// Text is a step that answers with text only.
func Text(s string) Step { return Step{Text: s} }

// Calls is a step that requests tool calls.
func Calls(calls ...ToolCall) Step { return Step{ToolCalls: calls} }

// Call is a tool call with an auto-generated id.
func Call(name, args string) ToolCall { return ToolCall{Name: name, Args: args} }

// faultFor picks the fault for the given 1-based attempt, or nil.
func (st *Step) faultFor(attempt int) *Fault {
	switch {
	case attempt <= len(st.Faults):
		return &st.Faults[attempt-1]
	case st.AlwaysFail && len(st.Faults) > 0:
		return &st.Faults[len(st.Faults)-1]
	}
	return nil
}

func (st *Step) chunkSize() int {
	if st.ChunkSize > 0 {
		return st.ChunkSize
	}
	return DefaultChunkSize
}

// callID is the tool call's id, generated when the script left it empty.
func (st *Step) callID(prefix string, step, i int) string {
	if id := st.ToolCalls[i].ID; id != "" {
		return id
	}
	return fmt.Sprintf("%s_%d_%d", prefix, step, i)
}

// usage is the scripted usage, or an estimate (~4 bytes a token) when none
// was scripted; it depends only on the request and the step so a retried
// attempt reports the same numbers.
func (st *Step) usage(reqBytes int) chat.Usage {
	if !st.Usage.IsZero() {
		return st.Usage
	}
	out := len(st.Reasoning) + len(st.Text)
	for _, c := range st.ToolCalls {
		out += len(c.Name) + len(c.Args)
	}
	return chat.Usage{InputTokens: max(1, reqBytes/4), OutputTokens: max(1, out/4)}
}

func (st *Step) stopReason(protocol string) string {
	if st.StopReason != "" {
		return st.StopReason
	}
	tools := len(st.ToolCalls) > 0
	switch {
	case st.Truncated && protocol == ProtocolOpenAI:
		return "length"
	case st.Truncated && protocol == ProtocolAnthropic:
		return "max_tokens"
	case st.Truncated:
		return "max_output_tokens"
	case protocol == ProtocolResponses:
		return "completed"
	case protocol == ProtocolOpenAI && tools:
		return "tool_calls"
	case protocol == ProtocolOpenAI:
		return "stop"
	case tools:
		return "tool_use"
	}
	return "end_turn"
}

// split cuts s into pieces of at most n bytes without breaking a UTF-8
// character (encoding/json would replace a broken one with U+FFFD, changing
// the text). A character longer than n is sent whole.
func split(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end := min(n, len(s))
		for end < len(s) && end > 0 && !utf8.RuneStart(s[end]) {
			end--
		}
		if end == 0 {
			_, end = utf8.DecodeRuneInString(s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}
