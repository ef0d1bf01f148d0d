package render

import (
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/repl/markdown"
	"github.com/coder-agent/coder/internal/termsafe"
)

// Pricer prices a model's usage; ok is false when its prices are unknown.
// The model catalog implements it; without one no cost is shown.
type Pricer interface {
	Cost(model string, u chat.Usage) (usd float64, ok bool)
}

// usageBook keeps the figures the end of a turn shows.
type usageBook struct {
	total    chat.Usage // the session's, as the core reported it
	lastCall chat.Usage // its prompt and output are the context now
	cost     float64    // of the calls this process priced
	priced   bool
	streamed int // bytes streamed this turn, to estimate an interrupted call
	// model prices the calls; context and limit are the core's estimate of
	// the context, for the share a turn's line shows.
	model          string
	context, limit int
}

func (b *usageBook) beginTurn() { b.streamed, b.lastCall = 0, chat.Usage{} }

func (b *usageBook) call(u chat.Usage, p Pricer) {
	if u.IsZero() {
		return // an interrupted call: what streamed is all there is
	}
	b.lastCall = u
	b.streamed = 0
	if p == nil {
		return
	}
	if c, ok := p.Cost(b.model, u); ok {
		b.cost += c
		b.priced = true
	}
}

// tokens is a token count for people: 950, 12.3k, 128k, 1.2M.
func tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
}

// turnDone ends a turn: the verification line, then what it cost, how much
// the session used and how full the context is.
func (r *Renderer) turnDone(e event.TurnFinished) {
	r.endBlock()
	if e.Verification != "" {
		r.line(r.st.Yellow(termsafe.Visible(e.Verification)))
	}
	u := e.Usage
	parts := []string{plural.Count(e.Steps, "step", "steps"), elapsed(e.Duration)}
	switch {
	case !u.IsZero():
		in := "in " + tokens(u.PromptTokens())
		if u.CacheReadTokens > 0 {
			in += " (" + tokens(u.CacheReadTokens) + " cached)"
		}
		parts = append(parts, in, "out "+tokens(u.OutputTokens))
	case r.usage.streamed > 0:
		parts = append(parts, "out ~"+tokens(r.usage.streamed/4)+" (interrupted, estimated)")
	}
	if t := usageOf(r.usage.total); t > 0 {
		parts = append(parts, "session "+tokens(t)+" tokens")
	}
	if share := r.contextShare(); share != "" {
		parts = append(parts, share)
	}
	if r.usage.priced {
		parts = append(parts, fmt.Sprintf("$%.4f", r.usage.cost))
	}
	r.line(r.st.Dim(strings.Join(parts, " · ")))
}

// contextShare is "context 12% of 128k": the last call's prompt and answer
// as the provider counted them, else the core's estimate.
func (r *Renderer) contextShare() string {
	used := r.usage.context
	if !r.usage.lastCall.IsZero() {
		used = usageOf(r.usage.lastCall)
	}
	limit := r.usage.limit
	if limit <= 0 || used <= 0 {
		return ""
	}
	return fmt.Sprintf("context %d%% of %s", (used*100+limit/2)/limit, tokens(limit))
}

func (r *Renderer) compacted(e event.Compacted) {
	how := "pruned old tool output"
	if e.Summarized {
		how = "summarised the older history"
	}
	r.line(r.st.Yellow(fmt.Sprintf("compacted: %s, %s → %s tokens", how, tokens(e.TokensBefore), tokens(e.TokensAfter))))
}

// replayRows is how many rows of one answer a replay shows.
const replayRows = 6

// replay shows where a resumed session stands: its inputs, answers (their
// first rows) and tool calls, no tool output.
func (r *Renderer) replay(e event.Replay) {
	r.endBlock()
	head := "[history] session " + e.SessionID
	if e.Title != "" {
		head += " · " + termsafe.Visible(e.Title)
	}
	r.line(r.st.Blue(head))
	if e.Omitted > 0 {
		r.line(r.st.Dim("  … " + plural.Count(e.Omitted, "earlier entry", "earlier entries")))
	}
	cols := r.cols()
	for _, en := range e.Entries {
		text := termsafe.Visible(en.Text)
		switch en.Role {
		case event.ReplayUser:
			first, rest, _ := strings.Cut(text, "\n")
			if rest != "" {
				first += r.st.Dim(" (+" + plural.Count(strings.Count(rest, "\n")+1, "line", "lines") + ")")
			}
			r.line(r.st.Bold("> ") + first)
		case event.ReplayTool:
			if en.OK {
				r.line(r.st.Dim("  ✓ "+termsafe.Visible(en.Tool)+" ") + r.st.Dim(text))
			} else {
				r.line(r.st.Red("  ✗ "+termsafe.Visible(en.Tool)+" ") + r.st.Dim(text))
			}
		case event.ReplayAnswer:
			r.commitRows(r.answerRows(text, cols))
			if en.Interrupted {
				r.line(r.st.Yellow("  [interrupted]"))
			}
		}
	}
}

// answerRows renders an answer's first rows, indented.
func (r *Renderer) answerRows(text string, cols int) []string {
	var rows []string
	if cols <= 0 {
		rows = strings.Split(text, "\n")
	} else {
		lr := markdown.Plain(r.st)
		if r.o.Markdown {
			lr = markdown.New(r.st)
		}
		for l := range strings.SplitSeq(text, "\n") {
			rows = append(rows, lr.Line(l, max(cols-2, 10))...)
		}
		rows = append(rows, lr.Flush(max(cols-2, 10))...)
	}
	cut := len(rows) > replayRows
	if cut {
		rows = rows[:replayRows]
	}
	for i, row := range rows {
		rows[i] = "  " + row
	}
	if cut {
		rows = append(rows, r.st.Dim("  …"))
	}
	return rows
}
