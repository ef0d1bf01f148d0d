//go:build e2e

package e2e

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// Editing the input (issue 26): pastes as placeholders inside the line,
// the completion menu, discoverable commands and arguments, history of a
// resumed session, a paste from a terminal without bracketed paste.

// forty is a paste of 40 lines.
func forty() string {
	var lines []string
	for i := 1; i <= 40; i++ {
		lines = append(lines, fmt.Sprintf("func line%d() {}", i))
	}
	return strings.Join(lines, "\n")
}

// waitInput waits until the live prompt block, its rows joined (the REPL
// wraps the input itself), holds want.
func (s *tmuxSession) waitInput(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.screen()
		if strings.Contains(strings.Join(promptRows(scr), ""), want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the prompt never held %q:\n%s", want, strings.Join(promptRows(scr), "\n"))
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// lastUserText is what the person's last message in request i said.
func lastUserText(t *testing.T, srv *llmtest.Server, i int) string {
	t.Helper()
	msgs := srv.Requests()[i].Messages()
	return msgs[len(msgs)-1].Text
}

// A paste is a placeholder inside the line: typing before and after it
// stays and is sent around the pasted lines; Backspace on it removes the
// paste only. Tab on @ma opens a menu that Esc closes alone, keeping the
// input; / then Tab lists the commands one per row, to choose with the
// arrows; /permissions completes its presets.
func TestREPLPastesAndMenus(t *testing.T) {
	for _, cols := range []int{40, 120} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("reviewed")}})
			dir := t.TempDir()
			for _, f := range []string{"main.go", "main_test.go", "makefile"} {
				writeFile(t, dir, f, "x\n")
			}
			s := startTmuxAt(t, cols, srv, dir, nil)
			paste := func() {
				s.tmux("set-buffer", forty())
				s.tmux("paste-buffer", "-p", "-t", "0")
			}
			const suffix = " and tell me what is wrong"
			s.typeText("review this: ")
			paste()
			s.waitPrompt(0, "review this: [Pasted text #1 +40 lines]")
			s.typeText(suffix)
			s.waitPrompt(0, "review this: [Pasted text #1 +40 lines]"+suffix)
			s.tmux("send-keys", "-t", "0", "-N", strconv.Itoa(len(suffix)), "Left")
			s.keys("BSpace")
			s.waitPrompt(0, "review this: "+suffix)
			paste()
			scr := s.waitPrompt(0, "review this: [Pasted text #2 +40 lines]"+suffix)
			if strings.Contains(scr, "func line2()") {
				t.Fatalf("the pasted lines reached the screen:\n%s", scr)
			}
			s.keys("Enter")
			s.waitFor("reviewed")
			if got, want := lastUserText(t, srv, 0), "review this: "+forty()+suffix; got != want {
				t.Fatalf("sent %q", got)
			}
			s.waitPrompt(1, "")

			// The menu: Esc closes it and nothing else.
			s.typeText("look at @ma")
			s.keys("Tab")
			s.waitFor("  @main_test.go")
			scr = s.waitFor("↑↓ select · enter take · esc close")
			if !strings.Contains(scr, "› @main.go") || !strings.Contains(scr, "  @makefile") {
				t.Fatalf("the menu:\n%s", strings.Join(promptRows(scr), "\n"))
			}
			s.keys("Escape")
			s.waitPrompt(1, "look at @ma")
			s.keys("Tab")
			s.waitFor("› @main.go")
			s.keys("Down")
			s.waitFor("› @main_test.go")
			s.keys("Enter")
			scr = s.waitPrompt(1, "look at @main_test.go")
			if strings.Contains(strings.Join(promptRows(scr), "\n"), "esc close") {
				t.Fatalf("the menu stayed:\n%s", scr)
			}
			s.keys("C-u")

			// / then Tab: every command on a row of its own, selectable.
			s.typeText("/")
			s.keys("Tab")
			scr = s.waitFor("› /build")
			rows := strings.Join(promptRows(scr), "\n")
			if !strings.Contains(rows, "\n  /clear") || !strings.Contains(rows, " matches · ") {
				t.Fatalf("the command menu:\n%s", rows)
			}
			// To the last, /undo, then past the end, round to the start.
			var matches int
			if _, err := fmt.Sscanf(rows[strings.LastIndex(rows, "\n")+1:], "  %d matches", &matches); err != nil {
				t.Fatalf("the menu's count: %v\n%s", err, rows)
			}
			s.tmux("send-keys", "-t", "0", "-N", strconv.Itoa(matches-1), "Down")
			s.waitFor("› /undo")
			s.keys("Down")
			s.waitFor("› /build")
			s.typeText("re") // narrows the menu
			s.waitFor("› /resume")
			s.keys("Enter")
			s.waitPrompt(1, "/resume")
			s.keys("C-u")

			// /permissions completes its presets.
			s.typeText("/permissions ")
			s.keys("Tab")
			scr = s.waitFor("› strict")
			for _, p := range []string{"balanced", "auto-edit", "yolo", "plan"} {
				if !strings.Contains(strings.Join(promptRows(scr), "\n"), "  "+p) {
					t.Fatalf("no %s in the menu:\n%s", p, strings.Join(promptRows(scr), "\n"))
				}
			}
			s.typeText("y")
			s.waitFor("› yolo")
			s.keys("Enter")
			s.waitPrompt(1, "/permissions yolo")
			s.keys("Enter")
			s.waitFor("permissions: yolo")
		})
	}
}

// After --continue, ↑ and Ctrl+R find the resumed session's inputs, and a
// search that stops matching shows no stale match. Without bracketed
// paste, pasted lines are one message, sent by Enter.
func TestREPLResumedHistoryAndPlainPaste(t *testing.T) {
	for _, cols := range []int{40, 120} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				llmtest.Text("noted"), llmtest.Text("again"), llmtest.Text("one message"),
			}})
			dir := t.TempDir()
			s := startTmuxAt(t, cols, srv, dir, nil)
			s.typeText("remember the apples")
			s.keys("Enter")
			s.waitFor("noted")
			s.typeText("and the pears")
			s.keys("Enter")
			s.waitFor("again")
			s.exitAfterTurn()

			s2 := startTmuxAt(t, cols, srv, dir, nil, "--continue")
			s2.waitFor("resumed session ")
			s2.keys("Up")
			s2.waitPrompt(0, "and the pears")
			s2.keys("Up")
			s2.waitPrompt(0, "remember the apples")
			s2.keys("C-u")
			s2.keys("C-r")
			s2.typeText("appl")
			s2.waitInput("(reverse-i-search)`appl': remember the apples")
			s2.typeText("x")
			scr := s2.waitInput("(failing reverse-i-search)`applx':")
			if row := promptRows(scr); strings.Contains(strings.Join(row, ""), "apples") {
				t.Fatalf("a stale match is shown:\n%s", strings.Join(row, "\n"))
			}
			s2.keys("Escape")
			s2.waitPrompt(0, "")

			// paste-buffer without -p: the lines come as typed, Enter for
			// each line end, in one burst.
			s2.tmux("set-buffer", "first pasted\nsecond pasted\nthird pasted\n")
			s2.tmux("paste-buffer", "-t", "0")
			s2.waitPrompt(0, "[Pasted text #1 +3 lines]")
			s2.keys("Enter")
			s2.waitFor("one message")
			if n := len(srv.Requests()); n != 3 {
				t.Fatalf("%d model calls, want 3", n)
			}
			if got := lastUserText(t, srv, 2); got != "first pasted\nsecond pasted\nthird pasted" {
				t.Fatalf("sent %q", got)
			}
		})
	}
}
