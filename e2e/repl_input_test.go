//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// The REPL's input area: one prompt block whatever the width, the resize,
// the history entry or the characters; typing and queueing during a run;
// steering; the keys and commands of issue 16.

const longModel = "meta-llama/llama-3.3-70b-instruct:free"

// promptRows are the rows from the last context line to the end: the live
// prompt block.
func promptRows(scr string) []string {
	lines := strings.Split(scr, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "context: ") {
			return lines[i:]
		}
	}
	return nil
}

// squeeze drops spaces, so rows wrapped at any width compare with the text.
func squeeze(s string) string { return strings.ReplaceAll(s, " ", "") }

// waitPrompt waits until the screen holds echoes+1 prompt blocks (the
// inputs sent, then the live one) and the live block's input is want;
// the pane must never show more blocks than that.
func (s *tmuxSession) waitPrompt(echoes int, want string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.screen()
		n := strings.Count("\n"+scr, "\ncontext: ")
		rows := promptRows(scr)
		got := ""
		if len(rows) > 1 {
			got = squeeze(strings.Join(rows[1:], ""))
		}
		if n == echoes+1 && strings.HasSuffix(got, squeeze("> "+want)) {
			return scr
		}
		if n > echoes+1 || time.Now().After(deadline) {
			s.t.Fatalf("want %d prompt blocks, the last ending in %q; got %d:\n%s", echoes+1, want, n, scr)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitDrawnAt waits until the live block's context line is drawn for a
// terminal cols wide: cut to exactly cols cells, or whole and narrower.
func (s *tmuxSession) waitDrawnAt(cols int) {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		rows := promptRows(s.screen())
		if len(rows) > 0 {
			w := cellWidth(rows[0])
			if strings.HasSuffix(rows[0], "…") && w == cols || !strings.HasSuffix(rows[0], "…") && w <= cols {
				return
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("never drawn at %d columns: %q", cols, rows)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// cursor is where the terminal's cursor is, and the visible row it is on.
func (s *tmuxSession) cursor() (x int, row string) {
	out := strings.Fields(s.tmux("display", "-p", "-t", "0", "#{cursor_x} #{cursor_y}"))
	x, _ = strconv.Atoi(out[0])
	y, _ := strconv.Atoi(out[1])
	lines := strings.Split(s.tmux("capture-pane", "-p", "-t", "0"), "\n")
	if y < len(lines) {
		row = lines[y]
	}
	return x, row
}

// waitCursorAfter waits until the cursor stands right after the last
// character of its row, and that row ends with suffix.
func (s *tmuxSession) waitCursorAfter(suffix string) {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		x, row := s.cursor()
		row = strings.TrimRight(row, " ")
		if strings.HasSuffix(row, suffix) && x == cellWidth(row) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("cursor at %d on %q, want it after %q", x, row, suffix)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// cellWidth counts CJK characters as two cells.
func cellWidth(s string) int {
	w := 0
	for _, r := range s {
		if r >= 0x1100 && (r <= 0x115f || (r >= 0x2e80 && r <= 0xa4cf) || (r >= 0xac00 && r <= 0xd7a3) || (r >= 0xf900 && r <= 0xfaff) || (r >= 0xff00 && r <= 0xff60)) {
			w += 2
		} else {
			w++
		}
	}
	return w
}

// At 30, 60 and 120 columns, with a model name wider than the narrow
// terminals: typing, editing, a literal tab, CJK text, a resize while text
// is typed, and ↑ onto an entry of several lines each leave exactly one
// prompt block.
func TestREPLOnePromptBlock(t *testing.T) {
	for _, cols := range []int{30, 60, 120} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("one"), llmtest.Text("two")}})
			dir := t.TempDir()
			s := startTmuxAt(t, cols, srv, dir, map[string]string{"CODER_MODEL": longModel})
			scr := s.waitPrompt(0, "")
			if info := promptRows(scr)[0]; cols < 60 && !strings.HasSuffix(info, "…") {
				t.Fatalf("a context line wider than the terminal is cut: %q", info)
			}

			// Every keystroke redraws; none leaves a copy.
			for _, c := range "hello world" {
				s.typeText(string(c))
			}
			s.keys("BSpace", "Left", "Left")
			s.typeText("X")
			s.waitPrompt(0, "hello woXrl")
			s.keys("C-u", "C-k")

			// A literal tab: the cursor stays right after what is drawn.
			s.typeText("a")
			s.keys("Tab")
			s.typeText("b")
			s.waitPrompt(0, "ab")
			s.waitCursorAfter("b")
			s.keys("C-u")

			// Wide characters.
			s.typeText("请修复这个函数")
			s.keys("Left", "Left", "BSpace")
			s.typeText("那")
			s.waitPrompt(0, "请修复这那函数")
			s.keys("End")
			s.waitCursorAfter("函数")
			s.keys("C-u")

			// A resize while text is typed: narrower, then wider again.
			s.typeText(strings.Repeat("resize ", 8) + "end")
			s.waitPrompt(0, strings.Repeat("resize ", 8)+"end")
			// Each width is drawn before the next key or resize: output
			// still on its way to the terminal when its width changes is
			// laid out at the new width by the terminal, which no program
			// can model (an open item for a window dragged on a starved
			// machine); what is tested is the reflow of a drawn region.
			for i, w := range []int{cols / 2, cols - 7, cols + 15, cols} {
				w = max(w, 20)
				s.tmux("resize-window", "-t", "0", "-x", strconv.Itoa(w))
				s.waitDrawnAt(w)
				s.typeText("!")
				s.waitPrompt(0, strings.Repeat("resize ", 8)+"end"+strings.Repeat("!", i+1))
			}
			s.waitPrompt(0, strings.Repeat("resize ", 8)+"end!!!!")
			s.waitCursorAfter("!!!!")
			s.keys("C-u")

			// A paste of several lines, sent, then recalled with ↑.
			s.tmux("set-buffer", "first line\nsecond line\nthird line")
			s.tmux("paste-buffer", "-p", "-t", "0")
			s.waitPrompt(0, "[Pasted text #1 +3 lines]")
			s.keys("Enter")
			s.waitFor("one")
			s.waitPrompt(1, "")
			s.typeText("short")
			s.keys("Enter")
			s.waitFor("two")
			s.waitPrompt(2, "")
			s.keys("Up")
			s.waitPrompt(2, "short")
			s.keys("Up")
			s.waitPrompt(2, "[Pasted text #1 +3 lines]")
			s.keys("Down")
			s.waitPrompt(2, "short")
			s.keys("Up")
			scr = s.waitPrompt(2, "[Pasted text #1 +3 lines]")
			if strings.Contains(scr, "second line") {
				t.Fatalf("a history entry's raw lines reached the screen:\n%s", scr)
			}
		})
	}
}

// Text typed while a turn streams is echoed at once; Enter queues it, and
// the turn's next model call carries it (steering); the queue line then
// goes away.
func TestREPLTypeAheadSteersTheTurn(t *testing.T) {
	slow := func(text string, calls ...llmtest.ToolCall) llmtest.Step {
		return llmtest.Step{Text: text, ToolCalls: calls, ChunkSize: 4, TokenDelay: 80 * time.Millisecond}
	}
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		slow("Let me read the notes first, slowly.", llmtest.Call("read", `{"path":"notes.txt"}`)),
		llmtest.Text("Done, and the README too."),
	}})
	dir := t.TempDir()
	writeFile(t, dir, "notes.txt", "hello\n")
	s := startTmux(t, srv, dir, nil)
	s.typeText("summarise the notes")
	s.keys("Enter")
	s.waitFor("[ANSWER]\nLet")
	s.typeText("also the README")
	scr := s.waitPrompt(1, "also the README")
	if strings.Contains(scr, "slowly.") {
		t.Fatal("the stream ended before the typing was seen: the test proves nothing")
	}
	s.keys("Enter")
	s.waitFor("queued: also the README")
	s.waitFor("Done, and the README too.")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2 (one turn)", len(reqs))
	}
	msgs := reqs[1].Messages()
	if last := msgs[len(msgs)-1]; last.Role != "user" || last.Text != "also the README" || msgs[len(msgs)-2].Role != "tool" {
		t.Fatalf("the second call ends with %+v", msgs[len(msgs)-2:])
	}
	scr = s.waitFor("[USER]\nalso the README")
	s.waitPrompt(1, "")
	if strings.Contains(promptArea(s.screen()), "queued:") {
		t.Fatalf("the queue line stayed:\n%s", scr)
	}
}

// promptArea is the screen from the last [USER]/[ANSWER] on (the live rows).
func promptArea(scr string) string {
	rows := promptRows(scr)
	return strings.Join(rows, "\n")
}

// Esc stops the turn and drops what was queued: nothing else is sent.
func TestREPLEscDropsTheQueue(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Text: strings.Repeat("slow ", 200), ChunkSize: 5, TokenDelay: 50 * time.Millisecond},
		llmtest.Text("should never be asked for"),
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	s.typeText("talk")
	s.keys("Enter")
	s.waitFor("[ANSWER]\nslow")
	s.typeText("and then this")
	s.keys("Enter")
	s.waitFor("queued: and then this")
	s.keys("Escape")
	s.waitFor("Cancelled by ESC")
	time.Sleep(500 * time.Millisecond)
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d model calls after Esc, want 1", n)
	}
	if strings.Contains(s.screen(), "queued:") {
		t.Fatalf("the queue is still shown:\n%s", s.screen())
	}
	s.waitPrompt(1, "")
}

// Ctrl+J and \ then Enter insert newlines; the input goes out with them.
func TestREPLNewlineKeys(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("got it")}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	s.typeText("line one")
	s.keys("C-j")
	s.typeText(`line two\`)
	s.keys("Enter")
	// Each key in a read of its own: keys that come together in one read
	// are a paste (a terminal without bracketed paste).
	s.waitPrompt(0, "line oneline two") // the backslash is gone: a new line
	s.typeText("line three")
	scr := s.waitFor("> line one\nline two\nline three")
	if rows := promptRows(scr); len(rows) != 4 {
		t.Fatalf("the prompt block:\n%s", strings.Join(rows, "\n"))
	}
	s.keys("Enter")
	s.waitFor("got it")
	msgs := srv.Requests()[0].Messages()
	if got := msgs[len(msgs)-1].Text; got != "line one\nline two\nline three" {
		t.Fatalf("sent %q", got)
	}
}

// Tab completes /commands, their arguments and @paths; on an empty line it
// still switches the mode; Ctrl+R finds an earlier input.
func TestREPLCompletionAndSearch(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Models: []string{"fake-model", "other-model"},
		Steps: []llmtest.Step{llmtest.Text("noted"), llmtest.Text("again")}})
	dir := t.TempDir()
	writeFile(t, dir, "notes.txt", "hello\n")
	writeFile(t, dir, "src/main.go", "package main\n")
	s := startTmux(t, srv, dir, nil)

	s.typeText("/he")
	s.keys("Tab")
	s.waitPrompt(0, "/help")
	s.keys("C-u")
	s.typeText("read @no")
	s.keys("Tab")
	s.waitPrompt(0, "read @notes.txt")
	s.typeText("and @sr")
	s.keys("Tab")
	s.waitPrompt(0, "read @notes.txt and @src/")
	s.keys("Tab")
	s.waitPrompt(0, "read @notes.txt and @src/main.go")
	s.keys("C-u")
	s.typeText("/model ot")
	s.keys("Tab")
	s.waitPrompt(0, "/model other-model")
	s.keys("C-u")
	s.keys("Tab")
	s.waitFor("[plan] ")

	s.typeText("remember the apples")
	s.keys("Enter")
	s.waitFor("noted")
	s.typeText("something else")
	s.keys("Enter")
	s.waitFor("again")
	s.keys("C-r")
	s.typeText("appl")
	s.waitFor("(reverse-i-search)`appl': remember the apples")
	s.keys("Enter")
	s.waitPrompt(2, "remember the apples")
}

// /model lists the server's models with the current one marked; /exit
// leaves with 0 and says how to come back; a model /model saved is used
// with CODER_PROVIDER set and no CODER_MODEL.
func TestREPLModelListExitAndSavedModel(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Models: []string{"fake-model", "other-model"},
		Steps: []llmtest.Step{llmtest.Text("first"), llmtest.Text("second")}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	s.typeText("/model")
	s.keys("Enter")
	s.waitFor("models the provider serves and the catalog knows (* = current):\n  * fake-model\n    other-model")
	s.typeText("/model other-model")
	s.keys("Enter")
	s.waitFor("model: other-model (saved to ")
	s.typeText("/mode")
	s.keys("Enter")
	s.waitFor("mode: build (build) · available: ")
	s.typeText("hi")
	s.keys("Enter")
	s.waitFor("first")
	s.typeText("/exit")
	s.keys("Enter")
	scr := s.waitFor("[exited 0]")
	if !strings.Contains(scr, "resume this session with: coder --resume ") {
		t.Fatalf("no resume hint on exit:\n%s", scr)
	}

	// Without CODER_MODEL the saved model is used for this endpoint.
	s2 := startTmux(t, srv, dir, map[string]string{"CODER_MODEL": ""})
	s2.waitFor("model: other-model")
	s2.typeText("hi again")
	s2.keys("Enter")
	s2.waitFor("second")
	if m := srv.Requests()[1].Model(); m != "other-model" {
		t.Fatalf("the second process asked for %q", m)
	}
	s2.typeText("/quit")
	s2.keys("Enter")
	s2.waitFor("[exited 0]")
}

// Ctrl+L and /clear clear the screen and leave one prompt block; an
// invalid approval answer says which answers are accepted.
func TestREPLClearAndApprovalHelp(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Text("before the clear"),
		llmtest.Calls(llmtest.Call("bash", `{"command":"touch made.txt"}`)), llmtest.Text("made it"),
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	s.typeText("hi")
	s.keys("Enter")
	s.waitFor("before the clear")
	s.typeText("/clear")
	s.keys("Enter")
	deadline := time.Now().Add(10 * time.Second)
	for visible := s.tmux("capture-pane", "-p", "-t", "0"); strings.Contains(visible, "before the clear"); visible = s.tmux("capture-pane", "-p", "-t", "0") {
		if time.Now().After(deadline) {
			t.Fatalf("/clear left the screen:\n%s", visible)
		}
		time.Sleep(30 * time.Millisecond)
	}
	s.typeText("typed")
	s.keys("C-l")
	s.waitCursorAfter("typed")
	visible := strings.TrimSpace(s.tmux("capture-pane", "-p", "-t", "0"))
	if strings.Count(visible, "context: ") != 1 || !strings.HasPrefix(visible, "context: ") {
		t.Fatalf("after Ctrl+L:\n%s", visible)
	}
	s.keys("C-u")
	s.typeText("make it")
	s.keys("Enter")
	s.waitFor("Approve? (y/n/always)")
	s.typeText("maybe")
	s.keys("Enter")
	s.waitFor(`answer y, n or always ("n <why>" tells the model why)`)
	s.typeText("y")
	s.keys("Enter")
	s.waitFor("made it")
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err != nil {
		t.Fatal(err)
	}
}
