package repl

import (
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/repl/style"
	"github.com/coder-agent/coder/internal/termsafe"
)

// drawPrompt redraws the input area: the context line and the input, or
// the approval or question being answered, or the history search.
func (r *REPL) drawPrompt() {
	var l inputLayout
	switch {
	case r.ia != nil:
		l = r.ia.layout(r)
	case r.search != nil:
		l = r.searchLayout()
	default:
		l = r.inputRows(true)
	}
	var hint []string
	switch {
	case r.menu != nil && r.ia == nil && r.search == nil:
		hint = r.menuLines(r.term.cols())
	case r.hint != "":
		hint = []string{r.hint}
	}
	r.scr.SetPrompt(l.rows, l.curRow, l.curCol, hint)
}

// inputRows is the two-line prompt with the input: the dim context line,
// then the green [mode] /abs/cwd> and the input, wrapped.
func (r *REPL) inputRows(withCursor bool) inputLayout {
	return r.layout(&r.ed, withCursor)
}

// infoRow is the prompt's first line: dim, cut to the terminal's width.
func (r *REPL) infoRow() string {
	st := r.prompt.get()
	return r.o.Style.Dim(style.Truncate(fmt.Sprintf("context: %d tokens · model: %s", st.Tokens, termsafe.Visible(st.Model)), r.term.cols()))
}

func (r *REPL) layout(e *editor, withCursor bool) inputLayout {
	st := r.prompt.get()
	cols := r.term.cols()
	info := r.infoRow()
	text, cur := e.display()
	if !withCursor {
		cur = len(text)
	}
	l := layoutInput(termsafe.Visible(fmt.Sprintf("[%s] %s> ", st.Agent, st.Cwd)), r.o.Style.Green, text, cur, cols)
	if !withCursor && len(l.rows) > 1 && l.rows[len(l.rows)-1] == "" {
		l.rows = l.rows[:len(l.rows)-1] // the row only the cursor would have used
	}
	l.rows = append([]string{info}, l.rows...)
	l.curRow++
	return l
}

// answerLayout is a one-line prompt (an approval's question, a
// question's "> ") with its input.
func (r *REPL) answerLayout(prompt string, color func(string) string, e *editor) inputLayout {
	text, cur := e.display()
	return layoutInput(prompt, color, text, cur, r.term.cols())
}

// answerEcho is an answered prompt, for the scrollback.
func (r *REPL) answerEcho(prompt string, color func(string) string, e *editor) string {
	text, _ := e.display()
	l := layoutInput(prompt, color, text, len(text), r.term.cols())
	rows := l.rows
	if len(rows) > 1 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	return strings.Join(rows, "\n") + "\n"
}
