//go:build e2e

package e2e

import (
	"strconv"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// Ctrl+Z stops coder as a shell's job, with the live region gone and the
// shell in charge of the terminal; fg brings it back redrawn, with what
// was being typed, and nothing typed at the shell reaches the model.
func TestREPLCtrlZSuspends(t *testing.T) {
	for _, cols := range []int{40, 120} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("came back")}})
			dir := t.TempDir()
			var coderLine string
			s := launchTmuxWith(t, cols, srv, dir, nil, func(coder string) string {
				coderLine = coder
				return "export PS1='$ '\nexec bash --norc --noprofile -i\n"
			})
			s.waitLast("$")
			s.typeText(coderLine)
			s.keys("Enter")
			s.waitFor("context: ")
			s.typeText("draft")
			s.waitPrompt(0, "draft")

			s.keys("C-z")
			s.waitFor("Stopped")
			s.waitLast("$")
			if rows := promptRows(s.screen()); len(rows) > 0 {
				t.Fatalf("the live region stayed on the shell's screen:\n%s", s.screen())
			}
			s.typeText("echo at the shell")
			s.keys("Enter")
			s.waitFor("\nat the shell\n")
			s.typeText("fg")
			s.keys("Enter")
			s.waitPrompt(0, "draft")
			s.typeText(" more")
			s.waitPrompt(0, "draft more")
			s.keys("Enter")
			s.waitFor("came back")
			reqs := srv.Requests()
			if len(reqs) != 1 || lastUserText(t, srv, 0) != "draft more" {
				t.Fatalf("%d model calls, the last with %q", len(reqs), lastUserText(t, srv, len(reqs)-1))
			}
			s.keys("C-d")
			s.waitLast("$")
			s.typeText("echo exit=$?")
			s.keys("Enter")
			s.waitFor("\nexit=0\n")
		})
	}
}
