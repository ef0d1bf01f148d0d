package render

import (
	"strconv"
	"strings"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/input"
	"github.com/coder-agent/coder/internal/repl/markdown"
	"github.com/coder-agent/coder/internal/repl/style"
	"github.com/coder-agent/coder/internal/termsafe"
)

// command shows a / or ! command's output: a [COMMAND] block (red when
// the command failed), the plan exit_plan_mode shows (as Markdown), or a
// / command's text.
func (r *Renderer) command(e event.CommandOutput) {
	text := termsafe.Visible(e.Text)
	switch e.Block {
	case "COMMAND":
		if commandExit(text) == 0 {
			r.line(r.st.Blue("[COMMAND]"))
			r.line(text)
			return
		}
		r.line(r.st.Red("[COMMAND]"))
		r.line(redExitLine(r.st, text))
	case "PLAN":
		r.line(r.st.Blue("[PLAN]"))
		r.markdown(text)
	case "":
		r.commandText(e.Command, text)
	default:
		r.line(r.st.Blue("[" + e.Block + "]"))
		r.line(text)
	}
}

// commandText is a / command's output: /diff and /todos coloured like the
// stream, anything else wrapped at words under each row's last column.
func (r *Renderer) commandText(command, text string) {
	r.endBlock()
	switch input.Parse(command).Name {
	case "diff":
		r.out(r.Diff(text + "\n"))
	case "todos":
		r.todoText(text)
	default:
		cols := r.cols()
		if cols == 0 {
			r.out(text + "\n")
			return
		}
		for l := range strings.SplitSeq(text, "\n") {
			r.commitRows(markdown.HangWrap(r.st, style.ExpandTabs(l), cols))
		}
	}
}

// markdown renders a whole text as an answer is rendered (raw with
// ui.markdown false or without a terminal).
func (r *Renderer) markdown(text string) {
	cols := r.cols()
	if cols == 0 || !r.o.Markdown {
		r.line(text)
		return
	}
	r.endBlock()
	sm := markdown.NewStreamer(markdown.New(r.st))
	r.commitRows(append(sm.Write(text+"\n", cols), sm.Finish(cols)...))
}

// commandExit is the exit code a [COMMAND] block reports (its
// "exit=N duration=…" line), 0 when it says none.
func commandExit(block string) int {
	for l := range strings.SplitSeq(block, "\n") {
		if rest, ok := strings.CutPrefix(l, "exit="); ok {
			code, _, _ := strings.Cut(rest, " ")
			n, err := strconv.Atoi(code)
			if err != nil {
				return 0
			}
			return n
		}
	}
	return 0
}

// redExitLine is a failed [COMMAND] block with its exit line in red.
func redExitLine(st style.Style, block string) string {
	lines := strings.Split(block, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "exit=") {
			lines[i] = st.Red(l)
			break
		}
	}
	return strings.Join(lines, "\n")
}
