package repl

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/coder-agent/coder/internal/orchestrator"
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
func (r *REPL) questions(q *qask) answerKind {
	answers := make([]string, 0, len(q.qs))
	for i, question := range q.qs {
		r.o.Renderer.Println(r.questionText(question, i, len(q.qs)))
		answer, kind := r.readAnswer(question)
		switch kind {
		case answerCancel:
			q.reply <- qresult{err: orchestrator.ErrQuestionsCancelled}
			return answered // the run goes on; the model is told
		case answerInterrupt:
			q.reply <- qresult{err: context.Canceled}
			return answerInterrupt
		}
		answers = append(answers, answer)
	}
	q.reply <- qresult{answers: answers}
	return answered
}

// questionText renders "[Question M/N] text" and the numbered options.
func (r *REPL) questionText(q orchestrator.Question, i, n int) string {
	var b strings.Builder
	head := "[Question]"
	if n > 1 {
		head = fmt.Sprintf("[Question %d/%d]", i+1, n)
	}
	b.WriteString(r.o.Style.Yellow(head) + " " + q.Question)
	for j, opt := range q.Options {
		fmt.Fprintf(&b, "\n  %d. %s", j+1, opt.Label)
		if j == 0 {
			b.WriteString(" (Recommended)")
		}
		if opt.Description != "" {
			b.WriteString(" — " + opt.Description)
		}
	}
	b.WriteString("\n")
	return b.String()
}

func (r *REPL) readAnswer(q orchestrator.Question) (string, answerKind) {
	const prompt = "> "
	var ed editor
	draw := func() {
		text, cur := ed.display()
		r.pv.draw("", r.o.Style.Green(prompt), prompt, text, cur, r.term.cols())
	}
	draw()
	for ev := range r.events {
		switch ev := ev.(type) {
		case uv.PasteEvent:
			ed.pasted(ev.Content)
		case uv.KeyPressEvent:
			switch ev.String() {
			case "esc":
				r.finishArea(prompt, &ed)
				return "", answerCancel
			case "ctrl+c":
				r.finishArea(prompt, &ed)
				return "", answerInterrupt
			case "enter":
				text := strings.TrimSpace(ed.text())
				if text == "" {
					continue // an empty Enter waits
				}
				r.finishArea(prompt, &ed)
				if n, err := strconv.Atoi(text); err == nil && n >= 1 && n <= len(q.Options) {
					return q.Options[n-1].Label, answered
				}
				return text, answered
			default:
				editKey(&ed, ev)
			}
		}
		draw()
	}
	return "", answerCancel
}

func (r *REPL) finishArea(prefix string, ed *editor) {
	text, _ := ed.display()
	r.pv.finish(prefix, text, r.term.cols())
}
