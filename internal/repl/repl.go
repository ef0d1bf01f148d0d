// Package repl is the interactive terminal: the input loop, the editor and
// the input area, and the approval and question prompts. It keeps the
// terminal's normal scrollback: no alternate screen, no mouse capture, no
// full-screen redraws. The output is drawn by its subpackages: render (the
// events), markdown (answers), screen (the scrollback and the live region)
// and style (colours and widths).
//
// Its files, by what they hold:
//   - the loop: repl.go (keys, runs, the queue), lines.go (line mode),
//     term_*.go (raw mode), burst.go (pastes without brackets),
//     suspend_*.go and resume.go (Ctrl+Z), notify.go (desktop notices);
//   - the input area: editor.go and keys.go (the line and its keys),
//     layout.go and prompt.go (drawing it), prompt_state.go (the prompt's
//     facts, from the events), complete.go and menu.go (Tab), search.go
//     (Ctrl+R), inbox.go (what was typed while a turn runs);
//   - the prompts that take over the input area: approve.go, question.go,
//     rewind.go.
package repl

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strings"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/coder-agent/coder/internal/input"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/repl/render"
	"github.com/coder-agent/coder/internal/repl/screen"
	"github.com/coder-agent/coder/internal/repl/style"
)

// Exit codes the REPL ends with.
const (
	exitOK        = 0
	exitInterrupt = 130
)

// Options configure an interactive session.
type Options struct {
	In, Out  *os.File
	Renderer *render.Renderer
	Style    style.Style
	// Term is $TERM, for the key decoder.
	Term string
	// Notify tells a person away from the terminal that a turn ended or
	// an answer waits (notify.go).
	Notify Notifier
}

// Runner runs inputs (the commands dispatcher over the core).
type Runner interface {
	RunInput(ctx context.Context, input string) (orchestrator.Outcome, error)
	// ToggleMode switches build ↔ plan (Tab on an empty input).
	ToggleMode()
	// Names lists the / commands, built-in and custom, without the slash.
	Names() []string
	// Summary is what a command does, in a line.
	Summary(name string) string
	// Inputs are what a person typed in the current session, oldest
	// first: a resumed session's inputs join the history.
	Inputs() []string
	// Arguments lists what a command's argument may be (the models for
	// /model, the modes for /mode, …), for completion; nil when unknown.
	Arguments(ctx context.Context, command string) []string
}

// REPL is an interactive session on a terminal. It is created before the
// core, which it serves as event sink (passing the events on to its
// renderer), approver, questioner and inbox; Run gets the runner.
//
// One goroutine owns the keyboard and the input area: it reads keys, runs
// each input in a goroutine of its own and, while it runs, keeps the input
// line live (typed text is echoed and editable; Enter queues it), answers
// approvals and questions, and redraws on resize.
type REPL struct {
	o      Options
	runner Runner
	term   *terminal
	scr    *screen.Screen
	ed     editor
	inbox  inbox
	events chan uv.Event
	winch  chan os.Signal
	cont   chan os.Signal // SIGCONT: the process was stopped and goes on
	asks   chan *ask
	qasks  chan *qask

	run    *activeRun  // the input running, nil when idle
	ia     interaction // an approval or questions being answered
	search *search     // Ctrl+R
	menu   *menu       // Tab's completion menu
	hint   string      // a line under the prompt (completions, a refused answer)
	prompt promptState // what the prompt shows, from the events (Emit)

	exiting  bool
	exitCode int
	// histSession is the session whose inputs the history holds.
	histSession string
	lastEsc     time.Time           // Esc on an empty prompt: a second one soon opens /rewind
	blurred     bool                // the terminal said it lost focus (notify.go)
	args        map[string][]string // command arguments for completion, by command
	before      func()
}

type activeRun struct {
	cancel               context.CancelFunc
	done                 chan error
	escaped, interrupted bool
}

// New prepares a REPL; Run starts it.
func New(o Options) *REPL {
	return &REPL{o: o, events: make(chan uv.Event, 64), winch: make(chan os.Signal, 1), cont: make(chan os.Signal, 1),
		asks: make(chan *ask), qasks: make(chan *qask), args: map[string][]string{}}
}

// Before sets what runs once the terminal is set up, before the first
// prompt (showing a resumed session).
func (r *REPL) Before(f func()) { r.before = f }

// Take implements orchestrator.Inbox: the messages queued while a turn
// runs join it before its next model call.
func (r *REPL) Take() []string { return r.inbox.take() }

// Run reads inputs until Ctrl+D on an empty line, /exit or /quit (0), or
// Ctrl+C (130).
func (r *REPL) Run(ctx context.Context, runner Runner) int {
	r.runner = runner
	t, err := enterRaw(r.o.In, r.o.Out)
	if err != nil {
		r.o.Renderer.Println(r.o.Style.Red("error: cannot use the terminal: " + err.Error()))
		return 1
	}
	r.term = t
	defer t.restore()
	r.scr = screen.New(r.o.Out, t.size)
	r.inbox.onChange = r.showQueue
	r.o.Renderer.Attach(r.scr, t.cols)
	defer r.o.Renderer.Attach(nil, nil)
	notifySignals(r.winch, r.cont)
	defer signal.Stop(r.winch)
	defer signal.Stop(r.cont)
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = uv.NewTerminalReader(newBurstReader(r.o.In), r.o.Term).StreamEvents(readCtx, r.events) }()
	go r.tick(readCtx)

	r.scr.Start()
	if r.before != nil {
		r.before()
	}
	r.syncHistory()
	r.drawPrompt()
	code := r.loop(ctx)
	r.scr.Close()
	if p := r.prompt.get(); p.Used && p.SessionID != "" {
		r.o.Renderer.Println(r.o.Style.Dim("resume this session with: coder --resume " + p.SessionID))
	}
	return code
}

func (r *REPL) loop(ctx context.Context) int {
	for !r.exiting || r.run != nil {
		var done chan error
		if r.run != nil {
			done = r.run.done
		}
		select {
		case <-ctx.Done():
			if r.run == nil {
				return exitInterrupt
			}
			r.interrupt()
		case <-r.winch:
			r.scr.Resized()
			r.o.Renderer.Refresh()
		case <-r.cont:
			r.resume() // stopped from elsewhere: the shell had the terminal
		case ev := <-r.events:
			r.handle(ctx, ev)
		case a := <-r.asks:
			r.search, r.menu = nil, nil // the answer takes the input area
			r.beginApproval(a)
		case q := <-r.qasks:
			r.search, r.menu = nil, nil
			r.beginQuestions(q)
		case err := <-done:
			r.runEnded(ctx, err)
		}
		r.drawPrompt()
	}
	return r.exitCode
}

// tick redraws the status line while a turn runs, ten times a second.
func (r *REPL) tick(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			var rows []string
			if line := r.o.Renderer.StatusLine(r.term.cols()); line != "" {
				rows = []string{line}
			}
			r.scr.Set(screen.PartStatus, rows)
		}
	}
}

func (r *REPL) handle(ctx context.Context, ev uv.Event) {
	switch ev := ev.(type) {
	case uv.CursorPositionEvent:
		r.scr.CursorAt(ev.Y)
	case uv.ModeReportEvent:
		if ev.Mode == ansi.ModeSynchronizedOutput {
			// Set or reset, it is known; permanently reset is "never".
			r.scr.SetSync(ev.Value == ansi.ModeSet || ev.Value == ansi.ModeReset || ev.Value == ansi.ModePermanentlySet)
		}
	case uv.BlurEvent:
		r.blurred = true
	case uv.FocusEvent:
		r.blurred = false
	case uv.PasteEvent:
		switch {
		case r.ia != nil:
			r.ia.editor().pasted(ev.Content)
		case r.search == nil:
			r.ed.pasted(ev.Content)
		}
	case uv.KeyPressEvent:
		switch {
		case ev.String() == "ctrl+z":
			r.suspend()
		case r.search != nil:
			r.searchKey(ev)
		case r.ia != nil:
			r.ia.key(r, ev)
		case r.menu != nil:
			r.menuKey(ctx, ev)
		default:
			r.key(ctx, ev)
		}
	}
}

// key handles a key on the input line.
func (r *REPL) key(ctx context.Context, ev uv.KeyPressEvent) {
	k := ev.String()
	if k != "tab" {
		r.hint = ""
	}
	switch k {
	case "enter":
		if r.ed.backslashBeforeCursor() {
			r.ed.backspace()
			r.ed.insert("\n")
			return
		}
		r.submit(ctx)
	case "ctrl+j", "shift+enter", "alt+enter":
		r.ed.insert("\n")
	case "tab":
		if r.ed.empty() {
			r.runner.ToggleMode()
			return
		}
		r.complete(ctx)
	case "ctrl+r":
		r.startSearch()
	case "ctrl+l":
		r.scr.Clear()
	case "esc", "alt+esc": // alt+esc: two Escs read together
		if r.run != nil {
			r.cancelRun()
			return
		}
		if r.ed.empty() && (k == "alt+esc" || r.escAgain()) {
			r.openRewind(ctx)
			return
		}
		r.ed.reset()
	case "ctrl+c":
		if r.run != nil {
			r.interrupt()
			return
		}
		r.exiting, r.exitCode = true, exitInterrupt
	case "ctrl+d":
		if r.ed.empty() {
			if r.run == nil {
				r.exiting, r.exitCode = true, exitOK
			}
			return
		}
		r.ed.del()
	default:
		editKey(&r.ed, ev)
	}
}

// submit sends the input: it runs now, or, while a turn runs, it is queued
// (and joins the turn before its next model call, or runs after it).
func (r *REPL) submit(ctx context.Context) {
	if strings.TrimSpace(r.ed.text()) == "" {
		r.ed.reset()
		return
	}
	if r.run != nil {
		x := r.ed.clone()
		r.ed.submit()
		r.inbox.push(x)
		return
	}
	r.scr.Commit(r.echo())
	r.start(ctx, r.ed.submit())
}

// echo is the prompt as it stands, for the scrollback.
func (r *REPL) echo() string {
	rows := r.inputRows(false)
	return strings.Join(rows.rows, "\n") + "\n"
}

// start runs one input in a goroutine of its own; the REPL's own commands
// run here.
func (r *REPL) start(ctx context.Context, typed string) {
	if line := input.Parse(typed); line.Kind == input.Command && line.Args == "" {
		switch line.Name {
		case "exit", "quit":
			r.exiting, r.exitCode = true, exitOK
			return
		case "clear":
			r.scr.Clear()
			return
		case "output":
			r.o.Renderer.ShowLastOutput()
			return
		case "rewind":
			r.openRewind(ctx)
			return
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	run := &activeRun{cancel: cancel, done: make(chan error, 1)}
	r.run = run
	r.o.Renderer.BeginInput(typed)
	go func() {
		_, err := r.runner.RunInput(runCtx, typed)
		run.done <- err
	}()
}

// runEnded follows an input's end: the cancel notice after Esc, the exit
// after Ctrl+C, else the next queued input.
func (r *REPL) runEnded(ctx context.Context, err error) {
	run := r.run
	r.run = nil
	run.cancel()
	r.o.Renderer.EndInput()
	r.scr.Set(screen.PartStatus, nil)
	r.ia = nil
	if run.escaped && errors.Is(err, context.Canceled) {
		r.o.Renderer.Cancelled()
	}
	if run.interrupted {
		r.exiting, r.exitCode = true, exitInterrupt
		return
	}
	r.syncHistory()
	if err != nil && !errors.Is(err, context.Canceled) {
		r.notify("coder: the turn stopped with an error")
	} else {
		r.notify("coder: the turn finished")
	}
	r.next(ctx)
}

// next runs what was queued, in order: a front-end command (/clear,
// /output, /exit) runs at once and the queue goes on after it, until an
// input runs in the background or nothing is left.
func (r *REPL) next(ctx context.Context) {
	for r.run == nil && !r.exiting {
		x, ok := r.inbox.pop()
		if !ok {
			return
		}
		var e editor
		e.set(x)
		r.scr.Commit(strings.Join(r.layout(&e, false).rows, "\n") + "\n")
		r.start(ctx, x.text())
	}
}

// syncHistory puts a resumed session's inputs before this process's in
// the history (↑, Ctrl+R), once the session is another than before: at
// start (--continue, --resume) and after /resume.
func (r *REPL) syncHistory() {
	id := r.prompt.get().SessionID
	if id == r.histSession {
		return
	}
	r.histSession = id
	var loaded []entry
	for _, s := range r.runner.Inputs() {
		loaded = append(loaded, entryOf(s))
	}
	if len(loaded) > 0 {
		r.ed.history = append(loaded, r.ed.history...)
		r.ed.hist = len(r.ed.history)
	}
}

// cancelRun is Esc while a turn runs: everything stops, the queue too.
func (r *REPL) cancelRun() {
	r.run.escaped = true
	r.run.cancel()
	r.inbox.clear()
}

// interrupt is Ctrl+C while a turn runs: it stops, then the REPL exits.
func (r *REPL) interrupt() {
	r.run.interrupted = true
	r.run.cancel()
	r.inbox.clear()
}

// showQueue draws the queued messages between the status line and the
// prompt.
func (r *REPL) showQueue(items []entry) {
	var rows []string
	for _, q := range items {
		rows = append(rows, r.o.Style.Dim("queued: ")+q.oneLine())
	}
	r.scr.Set(screen.PartQueue, rows)
}
