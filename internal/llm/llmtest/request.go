package llmtest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Request is one HTTP request the server received, with what it did about
// it. Faulted and rejected attempts are recorded too.
type Request struct {
	// Index is the step the request was matched to: len(Steps) when the
	// scenario was exhausted, -1 for an unknown path. Attempt counts
	// attempts at that step from 1 (0 when no step was matched).
	Index   int
	Attempt int
	// Protocol is ProtocolOpenAI, ProtocolAnthropic or ProtocolResponses
	// ("" for an unknown path).
	Protocol string
	Path     string
	Header   http.Header
	Body     []byte
	// Fault names what went wrong on purpose or by rejection: a FaultKind,
	// or one of "check_failed", "exhausted", "bad_request", "not_found";
	// "" when the step was served normally.
	Fault string
	// CheckErr is the Step.Check error, if the check failed.
	CheckErr error
	// Status is the HTTP status replied (200 for every stream, faulted or
	// not). Completed reports that the whole stream was delivered, which is
	// what advances the scenario.
	Status    int
	Completed bool
	// Start is when the request arrived; End is when the reply finished
	// (zero while it is in flight).
	Start, End time.Time

	advanced bool // the scenario moved past this request's step
}

// Msg is a protocol-neutral view of one message in a request body, shaped
// like chat.Message so assertions read the same for both protocols: an
// Anthropic user message holding tool_result blocks becomes one "tool" Msg
// per result (plus a "user" Msg for any text), as OpenAI sends them.
type Msg struct {
	Role      string // "user", "assistant" or "tool"
	Text      string
	Reasoning string
	// Signature is the thinking signature sent back (Anthropic).
	Signature string
	// ReasoningItems are the reasoning items sent back with an assistant
	// turn, as JSON, and Phases the phase of each of its messages, ""
	// when one has none (Responses API).
	ReasoningItems []string
	Phases         []string
	ToolCalls      []ToolCall
	// ToolCallID and IsError are set on "tool" messages; IsError is only
	// expressible on the Anthropic wire.
	ToolCallID string
	IsError    bool
}

// Model is the "model" field of the body.
func (r Request) Model() string {
	var v struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(r.Body, &v)
	return v.Model
}

// System is the system prompt: Anthropic's "system" (string or text
// blocks), or OpenAI's system/developer messages, joined by newlines.
func (r Request) System() string {
	b := r.parse()
	switch r.Protocol {
	case ProtocolAnthropic:
		return textOf(b.System, "\n")
	case ProtocolResponses:
		return b.Instructions
	}
	var parts []string
	for _, m := range b.Messages {
		if m.Role == "system" || m.Role == "developer" {
			parts = append(parts, textOf(m.Content, "\n"))
		}
	}
	return strings.Join(parts, "\n")
}

// ToolNames lists the tools offered, in order.
func (r Request) ToolNames() []string {
	var names []string
	for _, t := range r.parse().Tools {
		name := t.Name // Anthropic
		if t.Function.Name != "" {
			name = t.Function.Name // OpenAI
		}
		names = append(names, name)
	}
	return names
}

// Messages is the conversation sent, system prompt excluded. It is nil if
// the body is not JSON.
func (r Request) Messages() []Msg {
	if r.Protocol == ProtocolResponses {
		return responsesMsgs(r.parse().Input)
	}
	var out []Msg
	for _, m := range r.parse().Messages {
		if r.Protocol == ProtocolAnthropic {
			out = append(out, anthropicMsgs(m)...)
		} else if m.Role != "system" && m.Role != "developer" {
			out = append(out, openAIMsg(m))
		}
	}
	return out
}

// ToolResults is every "tool" message of the conversation, in order.
func (r Request) ToolResults() []Msg {
	var out []Msg
	for _, m := range r.Messages() {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// reqBody is the union of the two protocols' request fields we read.
type reqBody struct {
	System       json.RawMessage   `json:"system"`
	Instructions string            `json:"instructions"` // Responses
	Input        []json.RawMessage `json:"input"`        // Responses
	Messages     []reqMessage      `json:"messages"`
	Tools        []struct {
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

type reqMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ReasoningContent string          `json:"reasoning_content"`
	ToolCallID       string          `json:"tool_call_id"`
	ToolCalls        []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (r Request) parse() reqBody {
	var b reqBody
	_ = json.Unmarshal(r.Body, &b)
	return b
}

func openAIMsg(m reqMessage) Msg {
	out := Msg{Role: m.Role, Text: textOf(m.Content, ""), Reasoning: m.ReasoningContent, ToolCallID: m.ToolCallID}
	for _, c := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
	}
	return out
}

// block is an Anthropic content block, any type.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func anthropicMsgs(m reqMessage) []Msg {
	var blocks []block
	if json.Unmarshal(m.Content, &blocks) != nil { // content is a plain string
		return []Msg{{Role: m.Role, Text: textOf(m.Content, "")}}
	}
	main := Msg{Role: m.Role}
	var results []Msg
	for _, b := range blocks {
		switch b.Type {
		case "text":
			main.Text += b.Text
		case "thinking":
			main.Reasoning += b.Thinking
			main.Signature += b.Signature
		case "tool_use":
			main.ToolCalls = append(main.ToolCalls, ToolCall{ID: b.ID, Name: b.Name, Args: compact(b.Input)})
		case "tool_result":
			results = append(results, Msg{Role: "tool", ToolCallID: b.ToolUseID, Text: textOf(b.Content, ""), IsError: b.IsError})
		}
	}
	if main.Text == "" && main.Reasoning == "" && main.ToolCalls == nil && results != nil {
		return results
	}
	return append(results, main)
}

// textOf reads content that is either a JSON string or an array of blocks,
// concatenating the text blocks with sep.
func textOf(raw json.RawMessage, sep string) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []block
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" || b.Type == "input_text" || b.Type == "output_text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, sep)
}

// responsesMsgs reads Responses API input items: an assistant turn is the
// run of reasoning items, assistant messages and function calls between
// other items.
func responsesMsgs(items []json.RawMessage) []Msg {
	var out []Msg
	var cur *Msg
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	assistant := func() *Msg {
		if cur == nil {
			cur = &Msg{Role: "assistant"}
		}
		return cur
	}
	for _, raw := range items {
		var it struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Output    string          `json:"output"`
			Phase     string          `json:"phase"`
			Summary   []struct {
				Text string `json:"text"`
			} `json:"summary"`
		}
		_ = json.Unmarshal(raw, &it)
		switch {
		case it.Type == "reasoning":
			a := assistant()
			a.ReasoningItems = append(a.ReasoningItems, compact(raw))
			for _, s := range it.Summary {
				a.Reasoning += s.Text
			}
		case it.Type == "function_call":
			a := assistant()
			a.ToolCalls = append(a.ToolCalls, ToolCall{ID: it.CallID, Name: it.Name, Args: it.Arguments})
		case it.Type == "function_call_output":
			flush()
			out = append(out, Msg{Role: "tool", ToolCallID: it.CallID, Text: it.Output})
		case it.Role == "assistant":
			a := assistant()
			a.Text += textOf(it.Content, "")
			a.Phases = append(a.Phases, it.Phase)
		default:
			flush()
			out = append(out, Msg{Role: it.Role, Text: textOf(it.Content, "")})
		}
	}
	flush()
	return out
}

func compact(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}
