//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// TestREPLNotifiesOnlyWhenUnfocused: with notifications "osc", the
// terminal's focus reports decide. Focused, a finished turn sends
// nothing; unfocused, an approval that waits and the turn's end each send
// an OSC 9 notification (wrapped for tmux's passthrough, as coder runs
// inside tmux); focused again, nothing; unfocused once more, one more.
// What coder writes is read from tmux's pipe-pane, byte for byte.
func TestREPLNotifiesOnlyWhenUnfocused(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Text("one done"),
		llmtest.Calls(llmtest.Call("write", `{"path":"n.txt","content":"x\n"}`)),
		llmtest.Text("two done"),
		llmtest.Text("three done"),
	}})
	dir := t.TempDir()
	writeConfig(t, dir, `{"notifications": "osc"}`)
	// coder starts once the pane's output is piped, so all of it is read.
	tmp := t.TempDir()
	ready, log := filepath.Join(tmp, "ready"), filepath.Join(tmp, "pane.out")
	s := launchTmuxWith(t, 120, srv, dir, nil, func(coder string) string {
		return "while [ ! -e " + shellQuote(ready) + " ]; do sleep 0.1; done\n" + coder + "\necho \"[exited $?]\"\nsleep 60\n"
	}, "--permissions", "strict")
	s.tmux("pipe-pane", "-o", "-t", "0", "cat >> "+shellQuote(log))
	writeFile(t, tmp, "ready", "")
	s.waitFor("context: ")
	out := func() string { b, _ := os.ReadFile(log); return string(b) }
	wrapped := func(text string) string { return "\x1bPtmux;\x1b\x1b]9;coder: " + text + "\a\x1b\\" }
	focus := func(in bool) {
		code := "4f" // ESC [ O: focus lost
		if in {
			code = "49" // ESC [ I: focus gained
		}
		s.tmux("send-keys", "-t", "0", "-H", "1b", "5b", code)
	}
	waitOut := func(want string, n int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for strings.Count(out(), want) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d× %q not written; coder wrote %q", n, want, out())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	focus(true)
	s.typeText("first")
	s.keys("Enter")
	s.waitFor("one done")
	s.waitNoStatus() // the turn has ended: the answer shows before

	focus(false)
	s.typeText("second")
	s.keys("Enter")
	s.waitFor("Approve? (y/n")
	waitOut(wrapped("approval needed: write"), 1)
	s.typeText("y")
	s.keys("Enter")
	s.waitFor("two done")
	waitOut(wrapped("the turn finished"), 1)

	focus(true)
	s.typeText("third")
	s.keys("Enter")
	s.waitFor("three done")
	s.waitNoStatus()

	focus(false)
	s.typeText("/cost")
	s.keys("Enter")
	waitOut(wrapped("the turn finished"), 2) // /cost's, the positive control
	time.Sleep(500 * time.Millisecond)
	o := out()
	if n := strings.Count(o, "]9;"); n != 3 {
		t.Fatalf("%d notifications, want 3 (approval, turn two, /cost):\n%s", n, s.screen())
	}
	if !strings.Contains(o, "\x1b[?1004h") {
		t.Fatal("focus reporting was not asked for")
	}
	s.typeText("/exit")
	s.keys("Enter")
	s.waitFor("[exited 0]")
	if !strings.Contains(out(), "\x1b[?1004l") {
		t.Fatal("focus reporting was left on at exit")
	}
}
