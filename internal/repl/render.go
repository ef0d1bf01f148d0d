package repl

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/session"
)

// CancelLines is what Esc during a run prints, exactly: people and scripts
// recognise a cancel by these two lines.
const CancelLines = "Cancelled by ESC\nStopped model stream and tool execution; todo state remains unchanged unless a tool had already completed.\n"

// Renderer is the REPL's event sink: one chronological stream in the normal
// scrollback. It also remembers what the prompt shows, from the events.
type Renderer struct {
	mu    sync.Mutex
	w     io.Writer
	st    Style
	block string // "answer", "thinking" or "" — the block being streamed
	bol   bool   // the cursor is at the beginning of a line

	prompt PromptState
}

// PromptState is what the prompt shows, as the events last told it.
type PromptState struct {
	Agent, Model, Cwd string
	Tokens, Limit     int
}

// NewRenderer writes to w.
func NewRenderer(w io.Writer, st Style) *Renderer {
	return &Renderer{w: w, st: st, bol: true}
}

// Prompt is what the prompt shows now.
func (r *Renderer) Prompt() PromptState {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prompt
}

// Emit implements event.Sink.
func (r *Renderer) Emit(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := e.(type) {
	case event.TextDelta:
		r.stream("answer", "[ANSWER]", e.Text, e.Text)
	case event.ReasoningDelta:
		r.stream("thinking", r.st.Dim("[THINKING]"), e.Text, r.st.Dim(e.Text))
	case event.StreamReset:
		r.line(r.st.Yellow("(the model call was retried; the partial answer above is void)"))
	case event.AssistantMessage:
		if e.Message.Interrupted {
			r.line(r.st.Yellow("[interrupted]"))
		}
		r.endBlock()
	case event.ToolStarted:
		r.line(r.st.Blue("[tool] "+e.Name) + " " + e.Summary)
	case event.ToolFinished:
		r.toolDone(e)
	case event.CommandOutput:
		if e.Block != "" {
			r.line(r.st.Blue("[" + e.Block + "]"))
		}
		r.line(e.Text)
	case event.Notice:
		r.line(r.st.Yellow(e.Text))
	case event.Error:
		r.line(r.errorText(e.Message))
	case event.SessionStarted:
		r.prompt.Agent, r.prompt.Model, r.prompt.Cwd = e.Agent, e.Model, e.Cwd
		if e.Resumed {
			r.line(r.st.Yellow("resumed session " + e.SessionID))
		}
	case event.ModeChanged:
		r.prompt.Agent = e.Agent
	case event.ModelChanged:
		r.prompt.Model = e.Model
	case event.ContextUpdated:
		r.prompt.Tokens, r.prompt.Limit = e.Tokens, e.Limit
	case event.TurnFinished:
		r.turnDone(e)
	case event.TodoUpdated:
		r.todos(e.Todos)
	case event.Subagent:
		r.subagent(e)
	}
}

// Cancelled prints the cancel notice.
func (r *Renderer) Cancelled() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endBlock()
	r.write(r.st.Yellow(strings.TrimSuffix(CancelLines, "\n")) + "\n")
}

// EnsureNewline ends a partly written line, so a prompt starts at column 0.
func (r *Renderer) EnsureNewline() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endBlock()
}

// Println writes a line of REPL chatter (command output, prompts' echoes).
func (r *Renderer) Println(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.line(s)
}

func (r *Renderer) errorText(msg string) string {
	if r.st.Color {
		return r.st.Red("error: " + msg)
	}
	return "ERROR: " + msg
}

func (r *Renderer) stream(block, header, raw, styled string) {
	if raw == "" {
		return
	}
	if r.block != block {
		r.endBlock()
		r.write(header + "\n")
		r.block = block
	}
	r.write(styled)
	r.bol = strings.HasSuffix(raw, "\n")
}

func (r *Renderer) endBlock() {
	if !r.bol {
		r.write("\n")
	}
	r.block = ""
}

func (r *Renderer) line(s string) {
	r.endBlock()
	r.write(s + "\n")
}

func (r *Renderer) write(s string) {
	_, _ = io.WriteString(r.w, s)
	if s != "" {
		r.bol = strings.HasSuffix(s, "\n")
	}
}

func (r *Renderer) toolDone(e event.ToolFinished) {
	summary := e.Summary
	if summary == "" {
		summary = "done"
	}
	if e.OK {
		r.line(r.st.Green("  ✓ "+e.Name) + " " + summary)
	} else {
		r.line(r.errorText(e.Name + ": " + summary))
	}
	if e.Diff != "" {
		r.write(r.diff(e.Diff))
	}
}

// diff colors a unified diff: + green, - red, headers and hunks dim.
func (r *Renderer) diff(d string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(d, "\n") {
		if l == "" {
			continue
		}
		body := strings.TrimSuffix(l, "\n")
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"):
			body = r.st.Dim(body)
		case strings.HasPrefix(l, "+"):
			body = r.st.Green(body)
		case strings.HasPrefix(l, "-"):
			body = r.st.Red(body)
		}
		b.WriteString(body + "\n")
	}
	return b.String()
}

// subagent shows a subagent's tool calls and end, prefixed with its id; its
// streamed text stays out of the parent's stream.
func (r *Renderer) subagent(e event.Subagent) {
	tag := r.st.Blue("[task " + e.ID + "]")
	switch in := e.Event.(type) {
	case event.ToolStarted:
		r.line(tag + " " + in.Name + " " + in.Summary)
	case event.ToolFinished:
		if !in.OK {
			r.line(tag + " " + r.errorText(in.Name+": "+in.Summary))
		}
	case event.TurnFinished:
		r.line(tag + " " + r.st.Dim(fmt.Sprintf("%s after %d steps", in.State, in.Steps)))
	}
}

// todos lists the todo items by status: done cyan, in progress yellow,
// pending dim.
func (r *Renderer) todos(items []session.Todo) {
	r.line(r.st.Blue("[todos]"))
	for _, td := range items {
		switch td.Status {
		case "done":
			r.line(r.st.Cyan("  [x] " + td.Content))
		case "in_progress":
			r.line(r.st.Yellow("  [~] " + td.Content))
		default:
			r.line(r.st.Dim("  [ ] " + td.Content))
		}
	}
}

func (r *Renderer) turnDone(e event.TurnFinished) {
	r.endBlock()
	if e.Verification != "" {
		r.line(r.st.Yellow(e.Verification))
	}
	u := e.Usage
	figures := fmt.Sprintf("%d steps · %s · tokens in %d out %d", e.Steps, e.Duration.Round(10*time.Millisecond), u.PromptTokens(), u.OutputTokens)
	if u.CacheReadTokens > 0 {
		figures += fmt.Sprintf(" (cached %d)", u.CacheReadTokens)
	}
	r.line(r.st.Dim(figures))
}
