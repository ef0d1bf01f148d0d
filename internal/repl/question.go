package repl

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/termsafe"
)

// qask is a set of questions passed to the REPL goroutine, which owns the
// keyboard: never two interactions at once.
type qask struct {
	qs    []orchestrator.Question
	reply chan qresult
}

type qresult struct {
	answers []string
	err     error
}

// Ask implements orchestrator.Questioner.
func (r *REPL) Ask(ctx context.Context, qs []orchestrator.Question) ([]string, error) {
	q := &qask{qs: qs, reply: make(chan qresult, 1)}
	select {
	case r.qasks <- q:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case res := <-q.reply:
		return res.answers, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// questions asks one question at a time: a number picks that
// option's label, other text is a free answer, an empty Enter waits, Esc
// dismisses them all (answers so far discarded), Ctrl+C exits.
type questions struct {
	q       *qask
	answers []string
	ed      editor
}

const answerPrompt = "> "

func (r *REPL) beginQuestions(q *qask) {
	if len(q.qs) == 0 {
		q.reply <- qresult{}
		return
	}
	r.o.Renderer.Println(r.questionText(q.qs[0], 0, len(q.qs)))
	r.ia = &questions{q: q}
	r.notify("coder: a question waits for your answer")
}

// questionText renders "[Question M/N] text" and the numbered options.
func (r *REPL) questionText(q orchestrator.Question, i, n int) string {
	var b strings.Builder
	head := "[Question]"
	if n > 1 {
		head = fmt.Sprintf("[Question %d/%d]", i+1, n)
	}
	b.WriteString(r.o.Style.Yellow(head) + " " + termsafe.Visible(q.Question))
	for j, opt := range q.Options {
		fmt.Fprintf(&b, "\n  %d. %s", j+1, termsafe.Visible(opt.Label))
		if j == 0 {
			b.WriteString(" (Recommended)")
		}
		if opt.Description != "" {
			b.WriteString(" — " + termsafe.Visible(opt.Description))
		}
	}
	b.WriteString("\n")
	return b.String()
}

func (qs *questions) editor() *editor { return &qs.ed }

func (qs *questions) layout(r *REPL) inputLayout {
	return r.answerLayout(answerPrompt, r.o.Style.Green, &qs.ed)
}

func (qs *questions) key(r *REPL, ev uv.KeyPressEvent) {
	echo := func() { r.scr.Commit(r.answerEcho(answerPrompt, r.o.Style.Green, &qs.ed)) }
	switch ev.String() {
	case "esc":
		echo()
		qs.q.reply <- qresult{err: orchestrator.ErrQuestionsCancelled}
		r.ia = nil // the run goes on; the model is told
	case "ctrl+c":
		echo()
		qs.q.reply <- qresult{err: context.Canceled}
		r.ia = nil
		if r.run != nil {
			r.interrupt()
		}
	case "enter":
		text := strings.TrimSpace(qs.ed.text())
		if text == "" {
			return // an empty Enter waits
		}
		echo()
		q := qs.q.qs[len(qs.answers)]
		if n, err := strconv.Atoi(text); err == nil && n >= 1 && n <= len(q.Options) {
			text = q.Options[n-1].Label
		}
		qs.answers = append(qs.answers, text)
		qs.ed.reset()
		if len(qs.answers) == len(qs.q.qs) {
			qs.q.reply <- qresult{answers: qs.answers}
			r.ia = nil
			return
		}
		i := len(qs.answers)
		r.o.Renderer.Println(r.questionText(qs.q.qs[i], i, len(qs.q.qs)))
	default:
		editKey(&qs.ed, ev)
	}
}
