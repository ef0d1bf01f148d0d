// Package render turns the core's events into the REPL's output: one
// chronological stream in the normal scrollback (answers rendered as they
// stream, tool calls, command output, usage) and, on a terminal, the live
// parts of the screen (the streamed partial line, a command's tail, the
// status line).
package render

import (
	"io"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/input"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/repl/markdown"
	"github.com/coder-agent/coder/internal/repl/screen"
	"github.com/coder-agent/coder/internal/repl/style"
	"github.com/coder-agent/coder/internal/termsafe"
)

// CancelLines is what Esc during a run prints, exactly: people and scripts
// recognise a cancel by these two lines.
const CancelLines = "Cancelled by ESC\nStopped model stream and tool execution; todo state remains unchanged unless a tool had already completed.\n"

// Renderer is the REPL's event sink: one chronological stream in the normal
// scrollback, and, while the REPL runs, the live status line.
//
// With a width (a terminal) answers are rendered as they stream: Markdown
// line by line, word-wrapped, the incomplete line shown in the live region
// until it completes. Without one (a pipe) text is written as it arrives.
type Renderer struct {
	mu sync.Mutex
	w  io.Writer
	st style.Style
	o  Options
	// scr, when set, takes every line (the REPL's screen); live parts
	// (the streamed partial line, a command's tail) are drawn there.
	scr    *screen.Screen
	status *status // the status line, while attached

	block string // "answer", "thinking" or "" — the block being streamed
	cr    bool   // the last chunk streamed ended in "\r", held back: it may be a CRLF's
	bol   bool   // raw text: the cursor is at the beginning of a line
	sm    *markdown.Streamer

	// pending is what the current call wrote for the screen: the lines to
	// commit and the live parts to replace, drawn at once by flush.
	pending strings.Builder
	live    map[int][]string

	calls map[string]*toolRun // running tool calls by id
	last  *finishedCall       // the latest finished call, for /output
	shown map[string]string   // the diff an approval showed, by call id
	bang  bool                // the input being run is a ! command
	usage usageBook
}

// Options shape the rendering.
type Options struct {
	// Markdown renders answers for the terminal; false writes them raw
	// (still wrapped at word boundaries on a terminal).
	Markdown bool
	// Width is the terminal's width; nil (or 0) means not a terminal: no
	// wrapping, no rendering, text as it came.
	Width func() int
	// Prices, when set, prices the usage of models whose prices it knows.
	Prices Pricer
}

// New writes to w.
func New(w io.Writer, st style.Style) *Renderer {
	return &Renderer{w: w, st: st, bol: true, o: Options{Markdown: true}, calls: map[string]*toolRun{}}
}

// Configure sets the rendering options.
func (r *Renderer) Configure(o Options) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.o = o
}

// Attach routes the output through the REPL's screen, laid out at the
// terminal's width, with a status line; nil detaches it.
func (r *Renderer) Attach(s *screen.Screen, cols func() int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endBlock()
	r.flush()
	r.scr, r.status = s, nil
	if s != nil {
		r.status = newStatus(r.st, time.Now)
	}
	r.o.Width = cols
}

// StatusLine is the status line at cols cells: "" when no input runs.
func (r *Renderer) StatusLine(cols int) string {
	r.mu.Lock()
	st := r.status
	r.mu.Unlock()
	if st == nil {
		return ""
	}
	return st.line(cols) // the status has its own lock: a redraw never waits for an event
}

// Refresh redraws the live parts after a resize.
func (r *Renderer) Refresh() {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.flush()
	if r.sm != nil {
		r.setLive(screen.PartStream, r.sm.Live(r.cols()))
	}
}

// Emit implements event.Sink.
func (r *Renderer) Emit(e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.flush()
	if r.status != nil {
		r.status.event(e)
	}
	switch e := e.(type) {
	case event.TextDelta:
		r.stream("answer", "[ANSWER]", e.Text)
	case event.ReasoningDelta:
		r.stream("thinking", r.st.Dim("[THINKING]"), e.Text)
	case event.StreamReset:
		r.line(r.st.Yellow("(the model call was retried; the partial answer above is void)"))
	case event.AssistantMessage:
		if e.Message.Interrupted {
			r.line(r.st.Yellow("[interrupted]"))
		}
		r.endBlock()
		r.usage.call(e.Usage, r.o.Prices)
	case event.UserMessage:
		r.line("[USER]")
		r.text(termsafe.Visible(e.Text))
	case event.ToolStarted:
		r.toolStarted(e)
	case event.ToolOutput:
		r.toolOutput(e)
	case event.ToolFinished:
		r.toolFinished(e)
	case event.CommandOutput:
		r.command(e)
	case event.Attached:
		r.line(r.st.Dim("attached: " + termsafe.Visible(strings.Join(e.Paths, ", "))))
	case event.Notice:
		r.line(r.st.Yellow(termsafe.Visible(e.Text)))
	case event.HookRan:
		r.hookRan("", e)
	case event.Error:
		r.line(r.errorText(termsafe.Visible(e.Message)))
	case event.SessionStarted:
		r.usage = usageBook{model: e.Model}
	case event.Replay:
		r.replay(e)
	case event.ModelChanged:
		r.usage.model = e.Model
	case event.ContextUpdated:
		r.usage.context, r.usage.limit = e.Tokens, e.Limit
	case event.UsageUpdated:
		r.usage.total = e.Total
		if costFigure(e) != "" { // the session's, as the core priced it
			r.usage.cost, r.usage.priced = e.CostUSD, true
		}
	case event.Compacted:
		r.compacted(e)
	case event.TurnFinished:
		r.turnDone(e)
	case event.TodoUpdated:
		r.line(r.st.Blue("[todos]"))
		r.todoLines(e.Todos)
	case event.Subagent:
		r.subagent(e)
	}
}

// Cancelled prints the cancel notice.
func (r *Renderer) Cancelled() {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.flush()
	r.endBlock()
	r.out(r.st.Yellow(strings.TrimSuffix(CancelLines, "\n")) + "\n")
}

// Previewed records that an approval showed call id's diff: the result
// does not show the same diff again.
func (r *Renderer) Previewed(id, diff string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.shown == nil {
		r.shown = map[string]string{}
	}
	r.shown[id] = diff
}

// Println writes a line of REPL chatter (command output, prompts' echoes).
func (r *Renderer) Println(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.flush()
	r.line(s)
}

// BeginInput is told which input runs next (a ! command shows one block);
// the status line starts.
func (r *Renderer) BeginInput(typed string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bang = input.Parse(typed).Kind == input.Shell
	r.usage.beginTurn()
	if r.status != nil {
		r.status.begin()
	}
}

// EndInput: the input ended; the status line goes.
func (r *Renderer) EndInput() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.status != nil {
		r.status.end()
	}
}

func (r *Renderer) errorText(msg string) string {
	if r.st.Color {
		return r.st.Red("error: " + msg)
	}
	return "ERROR: " + msg
}

// cols is the width to lay text out at; 0 when not a terminal.
func (r *Renderer) cols() int {
	if r.o.Width == nil {
		return 0
	}
	return r.o.Width()
}

// stream shows a chunk of the block being streamed.
func (r *Renderer) stream(block, header, text string) {
	if text == "" {
		return
	}
	// A CRLF split between chunks is a line end, not a visible "\r".
	if r.cr && r.block == block {
		text = "\r" + text
	}
	text, r.cr = strings.CutSuffix(text, "\r")
	if text == "" {
		return
	}
	text = termsafe.Visible(text)
	r.usage.streamed += len(text)
	if r.block != block {
		r.endBlock()
		r.out(header + "\n")
		r.block = block
		if cols := r.cols(); cols > 0 {
			lr := markdown.Plain(r.st)
			switch {
			case block == "thinking":
				lr = markdown.Dim(r.st)
			case r.o.Markdown:
				lr = markdown.New(r.st)
			}
			r.sm = markdown.NewStreamer(lr)
		}
	}
	if r.sm == nil {
		if block == "thinking" {
			r.write(r.st.Dim(text))
		} else {
			r.write(text)
		}
		r.bol = strings.HasSuffix(text, "\n")
		return
	}
	cols := r.cols()
	r.commitRows(r.sm.Write(text, cols))
	r.setLive(screen.PartStream, r.sm.Live(cols))
}

func (r *Renderer) endBlock() {
	if r.sm != nil {
		r.commitRows(r.sm.Finish(r.cols()))
		r.setLive(screen.PartStream, nil)
		r.sm = nil
	}
	if !r.bol {
		r.write("\n")
	}
	r.block = ""
}

func (r *Renderer) line(s string) {
	r.endBlock()
	r.out(s + "\n")
}

// text writes plain text, word-wrapped on a terminal.
func (r *Renderer) text(s string) {
	if cols := r.cols(); cols > 0 {
		var rows []string
		for l := range strings.SplitSeq(s, "\n") {
			rows = append(rows, markdown.Plain(r.st).Line(l, cols)...)
		}
		r.commitRows(rows)
		return
	}
	r.out(s + "\n")
}

func (r *Renderer) commitRows(rows []string) {
	if len(rows) > 0 {
		r.out(strings.Join(rows, "\n") + "\n")
	}
}

// out writes complete lines.
func (r *Renderer) out(s string) {
	if r.scr != nil {
		r.pending.WriteString(s)
		r.bol = true
		return
	}
	r.write(s)
}

// write writes text as it is (raw streaming, no screen).
func (r *Renderer) write(s string) {
	if s == "" {
		return
	}
	if r.scr != nil {
		r.pending.WriteString(s)
		return
	}
	_, _ = io.WriteString(r.w, s)
	r.bol = strings.HasSuffix(s, "\n")
}

// setLive replaces a live part (drawn by flush).
func (r *Renderer) setLive(part int, rows []string) {
	if r.scr == nil {
		return
	}
	if r.live == nil {
		r.live = map[int][]string{}
	}
	r.live[part] = rows
}

// flush draws what the call wrote: one redraw of the screen.
func (r *Renderer) flush() {
	if r.scr == nil || (r.pending.Len() == 0 && len(r.live) == 0) {
		return
	}
	r.scr.Update(r.pending.String(), r.live)
	r.pending.Reset()
	r.live = nil
}

// Diff colors a unified diff: + green, - red, headers and hunks dim.
func (r *Renderer) Diff(d string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(d, "\n") {
		if l == "" {
			continue
		}
		b.WriteString(markdown.DiffLine(r.st, strings.TrimSuffix(l, "\n")) + "\n")
	}
	return b.String()
}

// subagent shows a subagent's tool calls and end, prefixed with its id; its
// streamed text stays out of the parent's stream.
func (r *Renderer) subagent(e event.Subagent) {
	tag := r.st.Blue("[task " + e.ID + "]")
	switch in := e.Event.(type) {
	case event.ToolStarted:
		r.line(tag + " " + termsafe.Visible(in.Name) + " " + termsafe.Visible(in.Summary))
	case event.ToolFinished:
		if !in.OK {
			r.line(tag + " " + r.errorText(termsafe.Visible(in.Name+": "+in.Summary)))
		}
	case event.TurnFinished:
		r.line(tag + " " + r.st.Dim(string(in.State)+" after "+plural.Count(in.Steps, "step", "steps")))
	case event.HookRan:
		r.hookRan(tag+" ", in)
	}
}

// hookRan shows a hook's run on one line (yellow when it changed what
// happens or failed), then what it printed for the person.
func (r *Renderer) hookRan(tag string, e event.HookRan) {
	line := termsafe.Visible(e.Line())
	switch e.Outcome {
	case "ok", "context added", "allowed":
		line = r.st.Dim(line)
	default:
		line = r.st.Yellow(line)
	}
	r.line(tag + line)
	if out := strings.TrimSpace(e.Output); out != "" {
		r.text(termsafe.Visible(out))
	}
}

// usageOf is the tokens a usage counts, in and out.
func usageOf(u chat.Usage) int { return u.PromptTokens() + u.OutputTokens }
