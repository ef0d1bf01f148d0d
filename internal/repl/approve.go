package repl

import (
	"context"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/coder-agent/coder/internal/permission"
)

// answerKind is how an interaction ended.
type answerKind int

const (
	answered answerKind = iota
	answerCancel
	answerInterrupt
)

// ask is an approval request passed from the orchestrator's goroutine to the
// REPL's, which owns the keyboard: one interaction at a time.
type ask struct {
	req   permission.Request
	reply chan askResult
}

type askResult struct {
	reply permission.Reply
	err   error
}

// Approve implements permission.Approver. Esc while it waits is a global
// cancel (the run's context), not "no".
func (r *REPL) Approve(ctx context.Context, req permission.Request) (permission.Reply, error) {
	a := &ask{req: req, reply: make(chan askResult, 1)}
	select {
	case r.asks <- a:
	case <-ctx.Done():
		return permission.Reply{}, ctx.Err()
	}
	select {
	case res := <-a.reply:
		return res.reply, res.err
	case <-ctx.Done():
		return permission.Reply{}, ctx.Err()
	}
}

// answer shows the request and reads y / n / always (policy asks only; a
// danger request accepts y or n). "n <text>" carries feedback to the model.
func (r *REPL) answer(a *ask) answerKind {
	st := r.o.Style
	r.o.Renderer.Println(st.Yellow("[approval] " + a.req.Call.Name + ": " + a.req.Call.Subject))
	for _, reason := range a.req.Reasons {
		r.o.Renderer.Println(st.Yellow("  " + reason))
	}
	always := a.req.PolicyAsk && !a.req.Danger
	question := "Approve? (y/n) "
	if always {
		question = "Approve? (y/n/always) "
	}
	var ed editor
	draw := func() {
		text, cur := ed.display()
		r.pv.draw("", st.Yellow(question), question, text, cur, r.term.cols())
	}
	finish := func() { r.finishArea(question, &ed) }
	draw()
	for ev := range r.events {
		k, ok := ev.(uv.KeyPressEvent)
		if !ok {
			continue
		}
		switch k.String() {
		case "esc":
			finish()
			a.reply <- askResult{err: context.Canceled}
			return answerCancel
		case "ctrl+c":
			finish()
			a.reply <- askResult{err: context.Canceled}
			return answerInterrupt
		case "enter":
			if reply, ok := parseApproval(ed.text(), always); ok {
				finish()
				a.reply <- askResult{reply: reply}
				return answered
			}
			ed.reset()
		default:
			editKey(&ed, k)
		}
		draw()
	}
	a.reply <- askResult{err: context.Canceled}
	return answerCancel
}

// parseApproval reads an answer; ok is false for anything it does not accept.
func parseApproval(s string, always bool) (permission.Reply, bool) {
	s = strings.TrimSpace(s)
	word, rest, _ := strings.Cut(s, " ")
	switch strings.ToLower(strings.TrimRight(word, ":,")) {
	case "y", "yes":
		return permission.Reply{Approved: true}, true
	case "always", "a":
		if always {
			return permission.Reply{Approved: true, Always: true}, true
		}
	case "n", "no":
		return permission.Reply{Feedback: strings.TrimSpace(rest)}, true
	}
	return permission.Reply{}, false
}
