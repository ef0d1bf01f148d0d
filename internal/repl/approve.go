package repl

import (
	"context"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/repl/style"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/termsafe"
)

// interaction is an approval or a set of questions being answered: it
// takes the keys and the input area until it is done.
type interaction interface {
	key(r *REPL, ev uv.KeyPressEvent)
	layout(r *REPL) inputLayout
	editor() *editor
}

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

// approval reads y / n / always (policy asks only; a danger request
// accepts y or n). "n <text>" carries feedback to the model.
type approval struct {
	a        *ask
	ed       editor
	always   bool
	question string
	more     []string // diff rows not shown yet
}

// beginApproval shows what is to be approved — the command and its
// reasons, the diff a write would apply (a page at a time), the URL — and
// takes the input area for the answer.
func (r *REPL) beginApproval(a *ask) {
	st := r.o.Style
	req := a.req
	c := req.Call
	var b strings.Builder
	name, subject := termsafe.Visible(c.Name), termsafe.Visible(c.Subject)
	if strings.Contains(subject, "\n") {
		b.WriteString(st.Yellow("[approval] "+name+":") + "\n")
		for l := range strings.SplitSeq(subject, "\n") {
			b.WriteString("    " + l + "\n")
		}
	} else {
		b.WriteString(st.Yellow("[approval] "+name+": "+subject) + "\n")
	}
	for _, reason := range req.Reasons {
		b.WriteString(st.Yellow("  "+termsafe.Visible(reason)) + "\n")
	}
	if c.Sandbox == sandbox.ReadOnly && c.Kind == chat.ToolExecute {
		// Plan mode's sandbox: saying yes runs it, but not as asked.
		b.WriteString(st.Yellow("  plan mode: the sandbox keeps the workspace read-only, so if this command writes there it fails (\"Read-only file system\"); switch to build mode (/build) to let it write") + "\n")
	}
	ap := &approval{a: a, always: req.PolicyAsk && !req.Danger}
	ap.question = "Approve? (y/n) "
	answers := "y: run it · n: refuse · n <why>: refuse and tell the model why · esc: stop the run"
	if ap.always {
		ap.question = "Approve? (y/n/always) "
		answers = "y: run it · always: and allow it from now on · n: refuse · n <why>: refuse and tell the model why · esc: stop the run"
	}
	if req.Preview != "" {
		rows := strings.Split(strings.TrimRight(r.o.Renderer.Diff(termsafe.Visible(req.Preview)), "\n"), "\n")
		page := r.page()
		if len(rows) > page {
			rows, ap.more = rows[:page], rows[page:]
		}
		b.WriteString(strings.Join(rows, "\n") + "\n")
		r.o.Renderer.Previewed(c.ID, req.Preview)
	}
	b.WriteString(st.Dim("  "+answers) + "\n")
	r.o.Renderer.Println(strings.TrimSuffix(b.String(), "\n"))
	r.ia = ap
	r.hint = ap.moreHint(st)
	r.notify("coder: approval needed: " + c.Name)
}

// page is how many diff rows fit above the prompt.
func (r *REPL) page() int {
	_, rows := r.term.size()
	return max(rows-8, 10)
}

func (ap *approval) moreHint(st style.Style) string {
	if len(ap.more) == 0 {
		return ""
	}
	return st.Dim("space: " + plural.Count(len(ap.more), "more line", "more lines") + " of the diff")
}

func (ap *approval) editor() *editor { return &ap.ed }

func (ap *approval) layout(r *REPL) inputLayout {
	return r.answerLayout(ap.question, r.o.Style.Yellow, &ap.ed)
}

func (ap *approval) key(r *REPL, ev uv.KeyPressEvent) {
	st := r.o.Style
	finish := func(res askResult) {
		r.scr.Commit(r.answerEcho(ap.question, st.Yellow, &ap.ed))
		ap.a.reply <- res
		r.ia, r.hint = nil, ""
	}
	switch ev.String() {
	case "esc":
		finish(askResult{err: context.Canceled})
		if r.run != nil {
			r.cancelRun()
		}
	case "ctrl+c":
		finish(askResult{err: context.Canceled})
		if r.run != nil {
			r.interrupt()
		}
	case "space":
		if ap.ed.empty() && len(ap.more) > 0 {
			page := r.page()
			rows := ap.more[:min(page, len(ap.more))]
			ap.more = ap.more[len(rows):]
			r.o.Renderer.Println(strings.Join(rows, "\n"))
			r.hint = ap.moreHint(st)
			return
		}
		editKey(&ap.ed, ev)
	case "enter":
		if reply, ok := parseApproval(ap.ed.text(), ap.always); ok {
			finish(askResult{reply: reply})
			return
		}
		accepted := "y or n"
		if ap.always {
			accepted = "y, n or always"
		}
		r.hint = st.Yellow("answer " + accepted + " (\"n <why>\" tells the model why); esc stops the run")
		ap.ed.reset()
	default:
		editKey(&ap.ed, ev)
	}
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
