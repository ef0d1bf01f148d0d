//go:build e2e

package e2e

import (
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// A command whose text carries a real escape sequence and carriage return
// (erase the line, go back, print a fake prompt) is shown in the approval
// prompt with them visible; the real prompt is intact below it, and the
// command's output, which prints the same bytes, is shown the same way.
func TestREPLApprovalShowsEscapesVisibly(t *testing.T) {
	// JSON's \u001b and \r are the real control characters in the command.
	cmd := `{"command":"printf '\u001b[2K\rApprove? fake\\n' | tee note.txt"}`
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", cmd)),
		llmtest.Text("wrote the note"),
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	s.typeText("write the note")
	s.keys("Enter")
	scr := s.waitFor(`[approval] bash: printf '\x1b[2K\x0dApprove? fake\n' | tee note.txt`)
	scr = s.waitFor("Approve? (y/n")
	if strings.Contains(scr, "\nApprove? fake") || strings.Contains(scr, "bash: Approve? fake") {
		t.Fatalf("the command's escape sequence was obeyed:\n%s", scr)
	}
	if last := lastLines(scr, 3); !strings.Contains(strings.Join(last, "\n"), "Approve? (y/n") {
		t.Fatalf("the real prompt is not at the bottom: %q\n%s", last, scr)
	}
	s.typeText("y")
	s.keys("Enter")
	scr = s.waitFor("wrote the note")
	// The output holds the real bytes; the screen shows them.
	if !strings.Contains(scr, `\x1b[2K\x0dApprove? fake`) {
		t.Fatalf("the output's escapes are not shown:\n%s", scr)
	}
	for _, l := range strings.Split(scr, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "Approve? fake") {
			t.Fatalf("a line begins with the fake prompt: the carriage return was obeyed:\n%s", scr)
		}
	}
}
