package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/repl/style"
	"github.com/coder-agent/coder/internal/session"
)

// ownSGR is the styling the renderer itself writes (colours, bold, dim).
var ownSGR = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// TestUntrustedTextIsShownNotObeyed: escape sequences and control
// characters from the model, a command's output, a file name or a todo are
// printed visibly, every one in the same \xNN form, while the renderer's own
// colours still reach the terminal; a CRLF split between chunks is a line end.
func TestUntrustedTextIsShownNotObeyed(t *testing.T) {
	for _, width := range []int{0, 80} {
		var b bytes.Buffer
		r := New(&b, style.Style{Color: true})
		o := Options{Markdown: true, Prices: prices{}}
		if width > 0 {
			o.Width = func() int { return width }
		}
		r.Configure(o)
		r.BeginInput("go")
		r.Emit(event.TextDelta{Text: "title\x1b]0;pwned\x07 done\r"})
		r.Emit(event.TextDelta{Text: "\nnext line\u009b2J end\n"})
		r.Emit(event.ToolStarted{CallID: "1", Name: "bash\x1b[8m", ToolKind: "execute", Summary: "printf '\x1b[2K\rApprove? fake'"})
		r.Emit(event.ToolOutput{CallID: "1", Name: "bash", Stream: event.Stdout, Text: "out\x1b[2K\r\nover\rwrite\x7f\n"})
		r.Emit(event.ToolFinished{CallID: "1", Name: "bash\x1b[8m", OK: true, Summary: "exit 0\x1b[A"})
		r.Emit(event.TodoUpdated{Todos: []session.Todo{{Content: "todo\x1b[1A", Status: session.TodoPending}}})
		r.Emit(event.Notice{Text: "note\x1b]52;c;Y2xpcA==\x07"})
		out := b.String()
		if !ownSGR.MatchString(out) {
			t.Fatalf("width %d: the renderer's own colours are gone:\n%q", width, out)
		}
		if rest := ownSGR.ReplaceAllString(out, ""); strings.ContainsAny(rest, "\x1b\r\x07\x7f\u009b") {
			t.Fatalf("width %d: a raw control character reached the terminal:\n%q", width, rest)
		}
		for _, want := range []string{`\x1b]0;pwned\x07`, `\u009b2J`, `bash\x1b[8m`, `printf '\x1b[2K\x0dApprove? fake'`,
			`out\x1b[2K`, `over\x0dwrite\x7f`, `exit 0\x1b[A`, `todo\x1b[1A`, `note\x1b]52;c;Y2xpcA==\x07`} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: %q is not shown in\n%q", width, want, out)
			}
		}
		if strings.Contains(out, `\x0d`+"\n") || strings.Contains(out, `done\x0d`) {
			t.Errorf("width %d: a CRLF was shown as \\x0d:\n%q", width, out)
		}
		r.mu.Lock()
		last := r.last
		r.mu.Unlock()
		if last == nil || !strings.Contains(r.lastOutput(), `over\x0dwrite\x7f`) || strings.Contains(r.lastOutput(), "\r") {
			t.Errorf("width %d: /output: %q", width, r.lastOutput())
		}
	}
}
