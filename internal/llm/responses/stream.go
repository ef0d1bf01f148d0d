package responses

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// event is the union of the stream events' fields read here. Unknown
// events (web search, code interpreter, …) are ignored.
type event struct {
	Type         string          `json:"type"`
	OutputIndex  int             `json:"output_index"`
	SummaryIndex int             `json:"summary_index"`
	Delta        string          `json:"delta"`
	Arguments    string          `json:"arguments"`
	Item         json.RawMessage `json:"item"`
	Response     *response       `json:"response"`
	// Code and Message are the "error" event's.
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

type item struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type response struct {
	Status            string `json:"status"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Usage *struct {
		InputTokens        int `json:"input_tokens"`
		OutputTokens       int `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"input_tokens_details"`
	} `json:"usage"`
}

// output is what is known about one output item, by output_index.
type output struct {
	kind     string // "reasoning", "function_call", "message", …
	call     int    // function_call: its ToolIndex
	block    int    // reasoning, message: its reasoning block
	summary  int    // reasoning: the summary part being streamed, -1 before any
	streamed bool   // function_call: arguments came as deltas
	ended    bool
}

// decoder turns events into deltas for one Stream call.
type decoder struct {
	out     llm.Emit
	label   string
	secret  string
	outputs map[int]*output
	order   []int // output indexes in arrival order
	calls   int
	blocks  int
}

func newDecoder(emit llm.Emit, label, secret string) *decoder {
	return &decoder{out: emit, label: label, secret: secret, outputs: map[int]*output{}}
}

// event applies one event and reports whether the response is complete.
func (d *decoder) event(name string, data []byte) (done bool, err error) {
	var e event
	if err := llm.DecodeEvent(d.label, data, &e); err != nil {
		return false, err
	}
	if e.Type == "" {
		e.Type = name
	}
	switch e.Type {
	case "response.output_item.added":
		d.itemAdded(&e)
	case "response.output_text.delta", "response.refusal.delta":
		d.send(chat.MessageDelta{Kind: chat.DeltaText, Text: e.Delta})
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		d.reasoning(&e)
	case "response.function_call_arguments.delta":
		if o := d.outputs[e.OutputIndex]; o != nil && o.kind == "function_call" && e.Delta != "" {
			o.streamed = true
			d.send(chat.MessageDelta{Kind: chat.DeltaToolCallArgs, ToolIndex: o.call, Text: e.Delta})
		}
	case "response.output_item.done":
		d.itemDone(&e)
	case "response.completed", "response.incomplete":
		return true, d.completed(e.Response)
	case "response.failed":
		return false, d.failed(e.Response, data)
	case "error":
		return false, llm.StreamError(d.label, errorObject(&e, data), d.secret)
	}
	return false, nil
}

func (d *decoder) send(m chat.MessageDelta) {
	if m.Text != "" || m.Kind != chat.DeltaText {
		d.out(m)
	}
}

func (d *decoder) itemAdded(e *event) {
	var it item
	_ = json.Unmarshal(e.Item, &it)
	o := &output{kind: it.Type, summary: -1}
	if _, seen := d.outputs[e.OutputIndex]; !seen {
		d.order = append(d.order, e.OutputIndex)
	}
	d.outputs[e.OutputIndex] = o
	switch it.Type {
	case "function_call":
		o.call = d.calls
		d.calls++
		d.send(chat.MessageDelta{Kind: chat.DeltaToolCallStart, ToolIndex: o.call, ToolCallID: it.CallID, ToolName: it.Name})
	case "reasoning", "message":
		o.block = d.blocks
		d.blocks++
	}
}

// reasoning shows a summary (or raw reasoning) fragment; summary parts of
// one item are separated by a blank line, as they read.
func (d *decoder) reasoning(e *event) {
	o := d.outputs[e.OutputIndex]
	if o == nil || o.kind != "reasoning" || e.Delta == "" {
		return
	}
	text := e.Delta
	if e.SummaryIndex != o.summary {
		if o.summary >= 0 {
			text = "\n\n" + text
		}
		o.summary = e.SummaryIndex
	}
	d.send(chat.MessageDelta{Kind: chat.DeltaReasoning, Block: o.block, BlockKind: chat.ReasoningResponsesItem, Text: text})
}

// itemDone finishes an item: a reasoning item is kept verbatim (its
// encrypted content is final only here), so is a message (its phase goes
// back with it), a call gets its arguments if none streamed, and ends.
func (d *decoder) itemDone(e *event) {
	o := d.outputs[e.OutputIndex]
	var it item
	_ = json.Unmarshal(e.Item, &it)
	if o == nil { // done without added: take it whole
		d.itemAdded(e)
		o = d.outputs[e.OutputIndex]
	}
	switch o.kind {
	case "reasoning", "message":
		kind := chat.ReasoningResponsesItem
		if o.kind == "message" {
			kind = chat.ReasoningResponsesMessage
		}
		var b bytes.Buffer
		if json.Compact(&b, e.Item) == nil {
			d.send(chat.MessageDelta{Kind: chat.DeltaReasoningRaw, Block: o.block, BlockKind: kind, Raw: b.String()})
		}
	case "function_call":
		if !o.streamed && it.Arguments != "" {
			d.send(chat.MessageDelta{Kind: chat.DeltaToolCallArgs, ToolIndex: o.call, Text: it.Arguments})
		}
		d.endCall(o)
	}
}

func (d *decoder) endCall(o *output) {
	if o.kind == "function_call" && !o.ended {
		o.ended = true
		d.send(chat.MessageDelta{Kind: chat.DeltaToolCallEnd, ToolIndex: o.call})
	}
}

// completed ends the response: open calls, usage (input_tokens includes
// the cached part), then DeltaDone with the status, or, for an incomplete
// response, why it stopped ("max_output_tokens").
func (d *decoder) completed(r *response) error {
	for _, i := range d.order {
		d.endCall(d.outputs[i])
	}
	stop := "completed"
	if r != nil {
		if r.Status != "" {
			stop = r.Status
		}
		if r.IncompleteDetails != nil && r.IncompleteDetails.Reason != "" {
			stop = r.IncompleteDetails.Reason
		}
		if u := r.Usage; u != nil {
			cached := min(u.InputTokensDetails.CachedTokens, u.InputTokens)
			d.send(chat.MessageDelta{Kind: chat.DeltaUsage, Usage: chat.Usage{
				InputTokens: u.InputTokens - cached, OutputTokens: u.OutputTokens, CacheReadTokens: cached,
			}})
		}
	}
	d.send(chat.MessageDelta{Kind: chat.DeltaDone, StopReason: stop})
	return nil
}

// failed is response.failed: its error, classified like any error object.
func (d *decoder) failed(r *response, data []byte) error {
	if r == nil || r.Error == nil {
		return llm.StreamError(d.label, data, d.secret)
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": r.Error.Message, "type": r.Error.Code}})
	return llm.StreamError(d.label, b, d.secret)
}

// errorObject reshapes the "error" event ({"code","message"} at the top,
// or nested under "error") into the error object StreamError reads.
func errorObject(e *event, data []byte) []byte {
	if e.Message == "" {
		return data
	}
	code := strings.Trim(string(e.Code), `"`)
	if code == "null" {
		code = ""
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": e.Message, "type": code}})
	return b
}
