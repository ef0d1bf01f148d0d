package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/coder-agent/coder/internal/orchestrator"
)

// Exit codes the REPL ends with.
const (
	exitOK        = 0
	exitInterrupt = 130
)

// Options configure an interactive session.
type Options struct {
	In, Out  *os.File
	Renderer *Renderer
	Style    Style
	// Term is $TERM, for the key decoder.
	Term string
}

// Runner runs inputs (the commands dispatcher over the core).
type Runner interface {
	RunInput(ctx context.Context, input string) (orchestrator.Outcome, error)
	// ToggleMode switches build ↔ plan (Tab on an empty input).
	ToggleMode()
}

// REPL is an interactive session on a terminal. It is created before the
// core, which it serves as approver and questioner; Run gets the runner.
type REPL struct {
	o      Options
	runner Runner
	term   *terminal
	ed     editor
	ahead  editor // typed while a run is active
	queue  []string
	pv     promptView
	events chan uv.Event
	winch  chan os.Signal
	asks   chan *ask
	qasks  chan *qask
}

// New prepares a REPL; Run starts it.
func New(o Options) *REPL {
	return &REPL{o: o, pv: promptView{out: o.Out}, events: make(chan uv.Event, 64),
		winch: make(chan os.Signal, 1), asks: make(chan *ask), qasks: make(chan *qask)}
}

// Run reads inputs until Ctrl+D on an empty line (0) or Ctrl+C (130).
func (r *REPL) Run(ctx context.Context, runner Runner) int {
	r.runner = runner
	t, err := enterRaw(r.o.In, r.o.Out)
	if err != nil {
		r.o.Renderer.Println(r.o.Style.Red("error: cannot use the terminal: " + err.Error()))
		return 1
	}
	r.term = t
	defer t.restore()
	signal.Notify(r.winch, syscall.SIGWINCH)
	defer signal.Stop(r.winch)
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() { _ = uv.NewTerminalReader(r.o.In, r.o.Term).StreamEvents(readCtx, r.events) }()

	for {
		var input string
		if len(r.queue) > 0 {
			input, r.queue = r.queue[0], r.queue[1:]
			r.ed.set(input)
			r.drawPrompt()
			r.finishPrompt()
			r.ed.submit()
		} else {
			in, code, done := r.readInput(ctx)
			if done {
				return code
			}
			input = in
		}
		if code, done := r.run(ctx, input); done {
			return code
		}
	}
}

// readInput edits one input. done reports the REPL should exit with code.
func (r *REPL) readInput(ctx context.Context) (input string, code int, done bool) {
	if !r.ahead.empty() {
		r.ed.set(r.ahead.text())
		r.ahead.reset()
	}
	r.drawPrompt()
	for {
		select {
		case <-ctx.Done():
			return "", exitInterrupt, true
		case <-r.winch:
			r.pv.drawn = false // the terminal reflowed; draw afresh below
			r.drawPrompt()
		case ev := <-r.events:
			switch ev := ev.(type) {
			case uv.PasteEvent:
				r.ed.pasted(ev.Content)
			case uv.KeyPressEvent:
				switch k := ev.String(); {
				case k == "enter":
					r.finishPrompt()
					text := r.ed.submit()
					if strings.TrimSpace(text) == "" {
						r.drawPrompt()
						continue
					}
					return text, 0, false
				case k == "ctrl+d" && r.ed.empty():
					r.finishPrompt()
					return "", exitOK, true
				case k == "ctrl+c":
					r.finishPrompt()
					return "", exitInterrupt, true
				case k == "tab" && r.ed.empty():
					r.runner.ToggleMode()
				default:
					editKey(&r.ed, ev)
				}
			}
			r.drawPrompt()
		}
	}
}

// editKey applies an editing key; keys it does not know are ignored.
func editKey(e *editor, ev uv.KeyPressEvent) {
	switch ev.String() {
	case "esc":
		e.reset()
	case "backspace", "ctrl+h":
		e.backspace()
	case "delete", "ctrl+d":
		e.del()
	case "left", "ctrl+b":
		e.left()
	case "right", "ctrl+f":
		e.right()
	case "home", "ctrl+a":
		e.home()
	case "end", "ctrl+e":
		e.end()
	case "ctrl+left", "alt+left", "alt+b":
		e.wordLeft()
	case "ctrl+right", "alt+right", "alt+f":
		e.wordRight()
	case "ctrl+w", "alt+backspace":
		e.deleteWordLeft()
	case "ctrl+k":
		e.killToEnd()
	case "ctrl+u":
		e.killToStart()
	case "up":
		e.up()
	case "down":
		e.down()
	case "tab":
		e.insert("\t")
	default:
		if ev.Text != "" && ev.Mod&(uv.ModCtrl|uv.ModAlt) == 0 {
			e.insert(ev.Text)
		}
	}
}

// prefix is the prompt's second line: [mode] /abs/cwd>
func (r *REPL) prefix() (styled, plain string) {
	st := r.o.Renderer.Prompt()
	plain = fmt.Sprintf("[%s] %s> ", st.Agent, st.Cwd)
	return r.o.Style.Green(plain), plain
}

func (r *REPL) infoLine() string {
	st := r.o.Renderer.Prompt()
	return r.o.Style.Dim(fmt.Sprintf("context: %d tokens · model: %s", st.Tokens, st.Model))
}

// drawPrompt (re)draws the two prompt lines with the input in place.
func (r *REPL) drawPrompt() {
	if !r.pv.drawn {
		r.o.Renderer.EnsureNewline()
	}
	styled, plain := r.prefix()
	text, cur := r.ed.display()
	r.pv.draw(r.infoLine(), styled, plain, text, cur, r.term.cols())
}

// finishPrompt leaves the prompt and its input in the scrollback as shown.
func (r *REPL) finishPrompt() {
	_, plain := r.prefix()
	text, _ := r.ed.display()
	r.pv.finish(plain, text, r.term.cols())
}

// run executes one input while watching the keyboard: Esc cancels the run,
// Ctrl+C cancels it and exits, other typing is kept for the next prompt.
func (r *REPL) run(ctx context.Context, input string) (code int, exit bool) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := r.runner.RunInput(runCtx, input)
		done <- err
	}()
	escaped, interrupted := false, false
	for {
		select {
		case err := <-done:
			if escaped && errors.Is(err, context.Canceled) {
				r.o.Renderer.Cancelled()
			}
			if interrupted {
				return exitInterrupt, true
			}
			return 0, false
		case a := <-r.asks:
			if res := r.answer(a); res == answerCancel {
				escaped = true
				cancel()
			} else if res == answerInterrupt {
				interrupted = true
				cancel()
			}
		case q := <-r.qasks:
			if r.questions(q) == answerInterrupt {
				interrupted = true
				cancel()
			}
		case <-r.winch:
		case ev := <-r.events:
			switch ev := ev.(type) {
			case uv.KeyPressEvent:
				switch ev.String() {
				case "esc":
					escaped = true
					cancel()
				case "ctrl+c":
					interrupted = true
					cancel()
				case "enter":
					if t := strings.TrimSpace(r.ahead.submit()); t != "" {
						r.queue = append(r.queue, t)
						r.o.Renderer.Println(r.o.Style.Yellow("queued: " + t))
					}
				default:
					editKey(&r.ahead, ev)
				}
			case uv.PasteEvent:
				r.ahead.pasted(ev.Content)
			}
		}
	}
}
