package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/repl/screen"
	"github.com/coder-agent/coder/internal/repl/style"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/termsafe"
)

const (
	// tailLines is how many lines of a command's output show, live and
	// when it ends.
	tailLines = 10
	// firstMatches is how many of a search's results show.
	firstMatches = 3
)

// toolRun is a running tool call and the output it wrote so far.
type toolRun struct {
	name, summary string
	// kind is the call's (event.ToolStarted.ToolKind): a command's summary
	// is the command; a search shows its first results.
	kind chat.ToolKind
	out  outputLog
}

// finishedCall is the latest finished call, for /output.
type finishedCall struct {
	name, summary string
	out           outputLog
	result        string
}

func (r *Renderer) toolStarted(e event.ToolStarted) {
	r.calls[e.CallID] = &toolRun{name: termsafe.Visible(e.Name), summary: termsafe.Visible(e.Summary), kind: e.ToolKind}
	if r.bang {
		return // the [COMMAND] block shows it
	}
	r.line(r.st.Blue("[tool] "+termsafe.Visible(e.Name)) + " " + termsafe.Visible(e.Summary))
}

func (r *Renderer) toolOutput(e event.ToolOutput) {
	c := r.calls[e.CallID]
	if c == nil {
		return
	}
	c.out.add(e.Stream, e.Text)
	if r.scr != nil {
		r.setLive(screen.PartTail, r.tailRows(&c.out, "", r.cols()))
	}
}

// tailRows are the last lines of an output, indented, stderr marked with
// "! " and red; more says how to see the rest.
func (r *Renderer) tailRows(out *outputLog, more string, cols int) []string {
	var rows []string
	if n := out.count() - tailLines; n > 0 {
		rows = append(rows, r.st.Dim("    … "+plural.Count(n, "earlier line", "earlier lines")+more))
	}
	for _, l := range out.last(tailLines) {
		text := style.ExpandTabs(l.text)
		if cols > 0 {
			text = style.Truncate(text, cols-4)
		}
		if l.stderr {
			rows = append(rows, r.st.Red("  ! "+text))
		} else {
			rows = append(rows, r.st.Dim("    "+text))
		}
	}
	return rows
}

func (r *Renderer) toolFinished(e event.ToolFinished) {
	c := r.calls[e.CallID]
	delete(r.calls, e.CallID)
	if c == nil {
		c = &toolRun{name: termsafe.Visible(e.Name)}
	}
	r.setLive(screen.PartTail, nil)
	shown, previewed := r.shown[e.CallID]
	delete(r.shown, e.CallID)
	name := termsafe.Visible(e.Name)
	r.last = &finishedCall{name: name, summary: c.summary, out: c.out, result: e.Result}
	if r.bang {
		return
	}
	if c.out.count() > 0 {
		r.endBlock()
		r.commitRows(r.tailRows(&c.out, " (/output shows them)", r.cols()))
	}
	summary := termsafe.Visible(e.Summary)
	if summary == "" {
		summary = "done"
	}
	if !e.OK {
		r.line(r.errorText(name + ": " + summary))
		return
	}
	detail := summary
	if c.summary != "" && c.kind != chat.ToolExecute && !strings.Contains(summary, c.summary) {
		detail = c.summary + " · " + summary
	}
	r.line(r.st.Green("  ✓ "+name) + " " + detail)
	if c.kind == chat.ToolSearch {
		r.firstResults(e.Result)
	}
	if e.Diff != "" && (!previewed || strings.TrimSpace(shown) != strings.TrimSpace(e.Diff)) {
		r.out(r.Diff(termsafe.Visible(e.Diff)))
	}
}

// firstResults shows the first lines of a search's result.
func (r *Renderer) firstResults(result string) {
	var rows []string
	lines := strings.Split(strings.TrimRight(termsafe.Visible(result), "\n"), "\n")
	shown := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "[") || strings.HasPrefix(l, "No ") {
			continue
		}
		if shown == firstMatches {
			rows = append(rows, r.st.Dim("    …"))
			break
		}
		text := style.ExpandTabs(l)
		if cols := r.cols(); cols > 0 {
			text = style.Truncate(text, cols-4)
		}
		rows = append(rows, r.st.Dim("    "+text))
		shown++
	}
	r.commitRows(rows)
}

// lastOutput is the full output of the latest tool call (/output).
func (r *Renderer) lastOutput() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.last
	if c == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(r.st.Blue("[output] "+c.name) + " " + c.summary + "\n")
	if c.out.count() == 0 {
		b.WriteString(strings.TrimRight(termsafe.Visible(c.result), "\n") + "\n")
		return b.String()
	}
	line := func(l outLine) {
		if l.stderr {
			b.WriteString(r.st.Red("! "+l.text) + "\n")
		} else {
			b.WriteString(l.text + "\n")
		}
	}
	head, dropped, tail := c.out.kept()
	for _, l := range head {
		line(l)
	}
	if dropped > 0 {
		b.WriteString(r.st.Yellow("…["+plural.Count(dropped, "line", "lines")+" not kept here]…") + "\n")
	}
	for _, l := range tail {
		line(l)
	}
	if files := fullOutputFiles(c.result); len(files) > 0 {
		b.WriteString(r.st.Dim("the whole output: "+termsafe.Visible(strings.Join(files, ", "))) + "\n")
	}
	return b.String()
}

// fullOutputFiles are the files a command's result names as holding its
// output whole (bash's stdout_file and stderr_file, when it was cut).
func fullOutputFiles(result string) []string {
	var r struct {
		Stdout string `json:"stdout_file"`
		Stderr string `json:"stderr_file"`
	}
	if json.Unmarshal([]byte(result), &r) != nil {
		return nil
	}
	var files []string
	for _, f := range []string{r.Stdout, r.Stderr} {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// ShowLastOutput prints the latest call's full output (/output).
func (r *Renderer) ShowLastOutput() {
	text := r.lastOutput()
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.flush()
	if text == "" {
		r.line("no tool call yet in this session")
		return
	}
	r.endBlock()
	r.out(text)
}

// todoLines lists the todo items by status: done cyan, in progress yellow,
// pending dim.
func (r *Renderer) todoLines(items []session.Todo) {
	for _, td := range items {
		switch td.Status {
		case session.TodoDone:
			r.line(r.st.Cyan("  [x] " + termsafe.Visible(td.Content)))
		case session.TodoInProgress:
			r.line(r.st.Yellow("  [~] " + termsafe.Visible(td.Content)))
		default:
			r.line(r.st.Dim("  [ ] " + termsafe.Visible(td.Content)))
		}
	}
}

// todoText colours a formatted todo list (/todos) by its marks.
func (r *Renderer) todoText(text string) {
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "[x]"):
			r.line(r.st.Cyan(l))
		case strings.HasPrefix(l, "[~]"):
			r.line(r.st.Yellow(l))
		case strings.HasPrefix(l, "[ ]"):
			r.line(r.st.Dim(l))
		default:
			r.line(l)
		}
	}
}

// elapsed is a duration for people: 850ms, 4.2s, 2m 05s.
func elapsed(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm %02ds", int(d/time.Minute), int(d%time.Minute/time.Second))
}
