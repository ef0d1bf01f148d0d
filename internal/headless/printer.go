// Package headless prints a -p run: the final answer as text, one JSON
// object, or one JSON event per line (stream-json). Field names follow
// Claude Code's headless output where there is a counterpart, so scripts
// written for it read ours.
package headless

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/termsafe"
)

// Format is an --output-format value.
type Format string

const (
	Text       Format = "text"
	JSON       Format = "json"
	StreamJSON Format = "stream-json"
)

// ParseFormat checks an --output-format value.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case Text, JSON, StreamJSON:
		return f, nil
	}
	return "", fmt.Errorf("unknown output format %q (use text, json or stream-json)", s)
}

// Printer is the event sink of a headless run. Data goes to Out; notices
// and errors in text mode go to Err.
type Printer struct {
	Format Format
	Out    io.Writer
	Err    io.Writer

	mu        sync.Mutex
	sessionID string
	model     string
	calls     []toolCall
}

type toolCall struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Args    string `json:"args"`
	OK      bool   `json:"ok"`
	Summary string `json:"summary"`
}

// Emit implements event.Sink.
func (p *Printer) Emit(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := e.(type) {
	case event.SessionStarted:
		p.sessionID, p.model = e.SessionID, e.Model
	case event.ModelChanged:
		p.model = e.Model
	case event.ToolFinished:
		p.calls = append(p.calls, toolCall{ID: e.CallID, Name: e.Name, Args: e.Args, OK: e.OK, Summary: e.Summary})
	}
	switch p.Format {
	case StreamJSON:
		p.writeLine(streamObject(e))
	default:
		// Errors end the run and are reported once, by the caller, as its
		// one-line reason; notices (retries, a weaker sandbox) are worth
		// seeing as they happen, on stderr, since stdout holds the result.
		switch n := e.(type) {
		case event.Notice:
			fmt.Fprintln(p.Err, "coder: "+termsafe.Visible(n.Text))
		case event.HookRan:
			// Like a notice: a hook's decision and what it printed.
			fmt.Fprintln(p.Err, "coder: "+termsafe.Visible(n.Line()))
			if out := strings.TrimSpace(n.Output); out != "" {
				fmt.Fprintln(p.Err, termsafe.Visible(out))
			}
		}
	}
}

// Finish prints the end of a run: the answer (text), the result object (json),
// or the closing result event (stream-json).
func (p *Printer) Finish(out orchestrator.Outcome, runErr error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.Format {
	case Text:
		// Text goes to a terminal as often as to a pipe: the model's
		// answer must not drive it (the JSON formats escape by themselves).
		if out.Result != "" {
			fmt.Fprintln(p.Out, termsafe.Visible(strings.TrimRight(out.Result, "\n")))
		}
		if out.Verification != "" {
			fmt.Fprintln(p.Out, termsafe.Visible(out.Verification))
		}
	default:
		p.writeLine(p.result(out, runErr))
	}
}

// result is the closing object, shaped like Claude Code's result message.
func (p *Printer) result(out orchestrator.Outcome, runErr error) map[string]any {
	subtype := "success"
	switch {
	case errors.Is(runErr, orchestrator.ErrStepLimit):
		subtype = "error_max_turns"
	case errors.Is(runErr, orchestrator.ErrTruncated):
		subtype = "error_max_output_tokens" // the answer was cut by the output limit
	case errors.Is(runErr, orchestrator.ErrBudget):
		subtype = "error_max_budget_usd" // the next call would have passed the budget
	case errors.Is(runErr, orchestrator.ErrSchemaMismatch):
		subtype = "error_max_structured_output_retries" // not valid against --json-schema, after a retry
	case out.State == event.StateAborted:
		subtype = "error_cancelled"
	case runErr != nil:
		subtype = "error_during_execution"
	}
	calls := p.calls
	if calls == nil {
		calls = []toolCall{}
	}
	m := map[string]any{
		"type":        "result",
		"subtype":     subtype,
		"is_error":    runErr != nil,
		"result":      out.Result,
		"session_id":  p.sessionID,
		"model":       p.model,
		"num_turns":   out.Steps,
		"duration_ms": out.Duration.Milliseconds(),
		"usage":       usageObject(out.Usage),
		"tool_calls":  calls,
		// What the run cost, from the model catalog's prices (Claude
		// Code's names): a model without a price has costUSD null and
		// adds nothing to the total.
		"total_cost_usd": out.Spend.TotalUSD(),
		"modelUsage":     modelUsage(out.Spend),
	}
	if out.Verification != "" {
		m["verification"] = out.Verification
	}
	if out.Structured != nil {
		m["structured_output"] = json.RawMessage(out.Structured)
	}
	if runErr != nil {
		m["error"] = out.Reason
	}
	return m
}

func usageObject(u chat.Usage) map[string]int {
	return map[string]int{
		"input_tokens":                u.InputTokens,
		"output_tokens":               u.OutputTokens,
		"cache_read_input_tokens":     u.CacheReadTokens,
		"cache_creation_input_tokens": u.CacheWriteTokens,
	}
}

// modelUsage is the run's usage and cost per model, as Claude Code's
// result has it.
func modelUsage(s orchestrator.Spend) map[string]any {
	out := map[string]any{}
	for _, m := range s {
		var cost any // null: the catalog has no price
		if m.Priced {
			cost = m.CostUSD
		}
		out[m.Model] = map[string]any{
			"inputTokens":              m.Usage.InputTokens,
			"outputTokens":             m.Usage.OutputTokens,
			"cacheReadInputTokens":     m.Usage.CacheReadTokens,
			"cacheCreationInputTokens": m.Usage.CacheWriteTokens,
			"calls":                    m.Calls,
			"costUSD":                  cost,
		}
	}
	return out
}

// streamObject is an event as one JSON object with its kind as "type".
func streamObject(e event.Event) any {
	b, err := json.Marshal(e)
	if err != nil || len(b) < 2 || b[0] != '{' {
		return map[string]string{"type": e.Kind()}
	}
	head := `{"type":` + quote(e.Kind())
	if string(b) == "{}" {
		return json.RawMessage(head + "}")
	}
	return json.RawMessage(head + "," + string(b[1:]))
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (p *Printer) writeLine(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"type":"error","message":` + quote(err.Error()) + `}`)
	}
	b = append(b, '\n')
	_, _ = p.Out.Write(b)
}
