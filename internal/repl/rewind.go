package repl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/termsafe"
)

// Rewinder is what the rewind picker needs of the runner (the commands
// dispatcher): the turns, and the files a code rewind would overwrite
// although someone changed them since coder last did.
type Rewinder interface {
	RewindTurns() []orchestrator.TurnInfo
	RewindChanged(ctx context.Context, number int) ([]string, error)
}

// escTwice is how soon a second Esc on an empty prompt must follow the
// first to open the picker, as in Claude Code.
const escTwice = 800 * time.Millisecond

// escAgain records an Esc on an empty, idle prompt and reports whether it
// is the second of a pair.
func (r *REPL) escAgain() bool {
	now := time.Now()
	again := !r.lastEsc.IsZero() && now.Sub(r.lastEsc) < escTwice
	r.lastEsc = now
	if again {
		r.lastEsc = time.Time{}
	}
	return again
}

// rewindPicker is /rewind (or Esc Esc) in the terminal: which turn, then
// what to restore, then — when files changed since coder last wrote them
// would be overwritten — whether to; it runs the /rewind command that
// says so. Esc cancels at any stage.
type rewindPicker struct {
	ctx     context.Context
	rw      Rewinder
	turns   []orchestrator.TurnInfo
	turn    orchestrator.TurnInfo
	scope   string // both, conversation or code, once chosen
	changed []string
	ed      editor
}

func (r *REPL) openRewind(ctx context.Context) {
	rw, ok := r.runner.(Rewinder)
	if !ok {
		r.o.Renderer.Println(r.o.Style.Red("error: rewinding is not available here"))
		return
	}
	p := &rewindPicker{ctx: ctx, rw: rw, turns: rw.RewindTurns()}
	if len(p.turns) == 0 {
		r.o.Renderer.Println(r.o.Style.Yellow("[rewind] no turns to go back to in this session"))
		return
	}
	r.search = nil
	var b strings.Builder
	b.WriteString(r.o.Style.Yellow("[rewind]") + " go back to before which turn? (number; Esc cancels)")
	for _, t := range p.turns {
		fmt.Fprintf(&b, "\n  %d. %s", t.Number, termsafe.Visible(title(t.Input)))
	}
	r.o.Renderer.Println(b.String() + "\n")
	r.ia = p
}

func title(input string) string { return session.TitleFrom(input) }

func (p *rewindPicker) editor() *editor { return &p.ed }

func (p *rewindPicker) layout(r *REPL) inputLayout {
	return r.answerLayout(answerPrompt, r.o.Style.Green, &p.ed)
}

func (p *rewindPicker) key(r *REPL, ev uv.KeyPressEvent) {
	switch ev.String() {
	case "esc", "ctrl+c":
		r.scr.Commit(r.answerEcho(answerPrompt, r.o.Style.Green, &p.ed))
		r.o.Renderer.Println(r.o.Style.Dim("rewind cancelled: nothing changed"))
		r.ia = nil
	case "enter":
		answer := strings.TrimSpace(p.ed.text())
		r.scr.Commit(r.answerEcho(answerPrompt, r.o.Style.Green, &p.ed))
		p.ed.reset()
		p.answer(r, answer)
	default:
		editKey(&p.ed, ev)
	}
}

// answer takes the answer to the current stage and asks the next.
func (p *rewindPicker) answer(r *REPL, a string) {
	st := r.o.Style
	switch {
	case p.turn.Number == 0:
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 || n > len(p.turns) {
			r.o.Renderer.Println(st.Yellow(fmt.Sprintf("[rewind] a turn number from 1 to %d, or Esc", len(p.turns))))
			return
		}
		p.turn = p.turns[n-1]
		r.o.Renderer.Println(st.Yellow("[rewind]") + fmt.Sprintf(" before turn %d (%s), put back:", n, termsafe.Visible(title(p.turn.Input))) +
			"\n  1. code and conversation (Recommended)\n  2. conversation only\n  3. code only\n")
	case p.scope == "":
		switch a {
		case "", "1":
			p.scope = "both"
		case "2":
			p.scope = "conversation"
		case "3":
			p.scope = "code"
		default:
			r.o.Renderer.Println(st.Yellow("[rewind] 1, 2 or 3, or Esc"))
			return
		}
		if p.scope != "conversation" {
			changed, err := p.rw.RewindChanged(p.ctx, p.turn.Number)
			if err != nil {
				r.o.Renderer.Println(st.Red("error: " + err.Error()))
				r.ia = nil
				return
			}
			if p.changed = changed; len(changed) > 0 {
				r.o.Renderer.Println(st.Yellow("[rewind]") + " changed since coder last wrote them: " + termsafe.Visible(strings.Join(changed, ", ")) +
					"\n  y. put them back too\n  n. leave them as they are (Enter)\n")
				return
			}
		}
		p.run(r, "")
	default:
		switch strings.ToLower(a) {
		case "y", "yes":
			p.run(r, " --overwrite")
		case "", "n", "no":
			p.run(r, " --keep")
		default:
			r.o.Renderer.Println(st.Yellow("[rewind] y or n, or Esc"))
		}
	}
}

// run hands the choice to the /rewind command; a rewound conversation
// gives the request back to the prompt, to edit and send again.
func (p *rewindPicker) run(r *REPL, flag string) {
	r.ia = nil
	if p.scope != "code" {
		r.ed.reset()
		r.ed.insert(p.turn.Input)
	}
	r.start(p.ctx, fmt.Sprintf("/rewind %d %s%s", p.turn.Number, p.scope, flag))
}
