//go:build e2e

package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// What the REPL shows of what is happening (issue 17): the status line,
// command output, approvals with their change, Markdown, the replay of a
// resumed session, usage, and /undo's note to the model.

var elapsedRE = regexp.MustCompile(` · (\d+)s · `)

// statusSeconds is the elapsed time the status line shows, -1 without one.
func statusSeconds(scr, phase string) int {
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, phase) && strings.HasSuffix(strings.TrimRight(l, " "), "esc to stop") {
			if m := elapsedRE.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[1])
				return n
			}
		}
	}
	return -1
}

// waitStatus waits until the status line shows phase with at least sec
// seconds elapsed.
func (s *tmuxSession) waitStatus(phase string, sec int) {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		scr := s.screen()
		if statusSeconds(scr, phase) >= sec {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no status line %q at %ds:\n%s", phase, sec, scr)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitNoStatus waits until no status line is on screen.
func (s *tmuxSession) waitNoStatus() string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.screen()
		if !strings.Contains(scr, "esc to stop") {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the status line stayed:\n%s", scr)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// The status line moves while the first token is slow to come and while a
// long command runs, with the command's last lines live above it; it
// leaves no trace. The command's tail stays, stderr marked, and /output
// shows all of it.
func TestREPLStatusLineAndCommandOutput(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Text: "first token at last", ChunkSize: 100, TokenDelay: 1300 * time.Millisecond},
		llmtest.Calls(llmtest.Call("bash", `{"command":"for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do echo step $i; sleep 0.25; done; echo '--- FAIL: TestAdd'; echo '    calc_test.go:8: Add(1, 2) = -1, want 3'; echo 'exit status 1' >&2; exit 1"}`)),
		llmtest.Text("The test fails."),
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil, "--permissions", "yolo")
	s.typeText("hello")
	s.keys("Enter")
	s.waitStatus("waiting for the model", 0)
	s.waitStatus("waiting for the model", 1)
	s.waitFor("first token at last")
	s.waitNoStatus()

	s.typeText("run the tests")
	s.keys("Enter")
	s.waitStatus("running for i in", 1)
	scr := s.waitFor("    step 3")
	if strings.Contains(scr, "step 14") {
		t.Fatal("the output appeared only at the end")
	}
	s.waitStatus("running for i in", 2)
	s.waitFor("The test fails.")
	scr = s.waitNoStatus()
	// stdout and stderr are read apart: their lines' order between them is
	// not the process's.
	for _, want := range []string{
		"\n        calc_test.go:8: Add(1, 2) = -1, want 3\n", "\n  ! exit status 1\n", "\nerror: bash: exit 1",
		"earlier lines (/output shows them)",
	} {
		if !strings.Contains(scr, want) {
			t.Fatalf("missing %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "    step 1\n") {
		t.Fatalf("more than the tail was left:\n%s", scr)
	}
	s.typeText("/output")
	s.keys("Enter")
	s.waitFor("[output] bash")
	s.waitFor("step 1\nstep 2\n")
	s.waitFor("! exit status 1")
}

// Under the strict preset a write shows the diff it would apply, an edit
// its change, and a command the whole command with the reasons.
func TestREPLApprovalShowsTheChange(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"calc.go"}`)),
		llmtest.Calls(llmtest.Call("write", `{"path":"hello.go","content":"package main\n\nfunc main() {}\n"}`)),
		llmtest.Calls(llmtest.Call("edit", `{"path":"calc.go","old_string":"return a - b","new_string":"return a + b"}`)),
		llmtest.Calls(llmtest.Call("bash", `{"command":"go vet ./...\necho checked"}`)),
		llmtest.Calls(llmtest.Call("write", `{"path":"big.txt","content":"`+strings.Repeat(`a line\n`, 120)+`"}`)),
		llmtest.Text("all approved"),
	}})
	dir := t.TempDir()
	writeFile(t, dir, "calc.go", "package main\n\nfunc Add(a, b int) int {\n\treturn a - b\n}\n")
	s := startTmux(t, srv, dir, nil, "--permissions", "strict")
	s.typeText("read calc.go first, then write hello.go")
	s.keys("Enter")
	s.waitFor("[approval] write: hello.go")
	s.waitFor("+++ b/hello.go")
	s.waitFor("+package main\n+\n+func main() {}")
	s.typeText("y")
	s.keys("Enter")
	s.waitFor("[approval] edit: calc.go")
	s.waitFor("-   return a - b\n+   return a + b") // tabs drawn as spaces
	s.typeText("y")
	s.keys("Enter")
	s.waitFor("[approval] bash:\n    go vet ./...\n    echo checked")
	s.typeText("y")
	s.keys("Enter")
	// A long diff comes a page at a time.
	s.waitFor("[approval] write: big.txt")
	scr := s.waitFor("more lines of the diff")
	shown := strings.Count(scr, "+a line")
	if shown == 0 || shown >= 120 {
		t.Fatalf("%d diff lines on the first page", shown)
	}
	s.keys("Space")
	s.waitCount("+a line", shown+1)
	s.typeText("y")
	s.keys("Enter")
	s.waitFor("all approved")
}

// A retried model call says when it tries again.
func TestREPLStatusLineRetry(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Text: "after the retry", Faults: []llmtest.Fault{{Kind: llmtest.FaultStatus, Status: 429, RetryAfter: "3"}}},
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	s.typeText("hi")
	s.keys("Enter")
	s.waitFor("retrying in ")
	scr := s.waitFor("after the retry")
	if !regexp.MustCompile(`retrying model call in [\d.]+s \(attempt 1\)`).MatchString(scr) {
		t.Fatalf("no retry notice:\n%s", scr)
	}
	s.waitNoStatus()
}

const markdownAnswer = "# Fixing the sign\n\nThe bug is in **Add**: it *subtracts* where it should add, so every caller that sums two numbers gets their difference instead and the tests fail.\n\n" +
	"- check `calc.go`\n- run the tests again\n\n| name | result |\n|---|---:|\n| Add | 3 |\n| Subtract | -1 |\n\n```go\nfunc Add(a, b int) int {\n\treturn a + b\n}\n```\n"

var answerWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(regexp.MustCompile("[*`#|:,.-]").ReplaceAllString(markdownAnswer, " ")) {
		answerWords[w] = true
	}
}

// The answer is rendered for the terminal at 60 and 120 columns: no
// Markdown marks, words never cut at the edge, the table aligned, code
// kept; with ui.markdown false it is the raw text.
func TestREPLMarkdown(t *testing.T) {
	for _, cols := range []int{60, 120} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: markdownAnswer, ChunkSize: 5, TokenDelay: 5 * time.Millisecond}}})
			dir := t.TempDir()
			s := startTmuxAt(t, cols, srv, dir, nil)
			s.typeText("why does it fail")
			s.keys("Enter")
			s.waitFor("    return a + b")
			scr := s.waitFor("\n1 step · ")
			answer := scr[strings.Index(scr, "[ANSWER]"):]
			answer = answer[:strings.Index(answer, "\n1 step · ")]
			for _, bad := range []string{"**", "# Fixing", "`calc.go`", "```", "|---"} {
				if strings.Contains(answer, bad) {
					t.Fatalf("raw Markdown %q in:\n%s", bad, answer)
				}
			}
			for _, want := range []string{"\nFixing the sign\n", "\n- check calc.go\n", "\nname      result\n", "\nSubtract      -1\n", "\n  func Add(a, b int) int {\n"} {
				if !strings.Contains(answer, want) {
					t.Fatalf("missing %q in:\n%s", want, answer)
				}
			}
			for _, l := range strings.Split(answer, "\n") {
				if len([]rune(l)) > cols {
					t.Fatalf("a row wider than %d: %q", cols, l)
				}
				if strings.Contains(l, "bug is in") || strings.Contains(l, "caller") || strings.Contains(l, "instead") {
					for _, w := range strings.Fields(strings.NewReplacer(":", " ", ",", " ", ".", " ").Replace(l)) {
						if !answerWords[w] {
							t.Fatalf("a word cut at the edge: %q in %q", w, l)
						}
					}
				}
			}
		})
	}
	t.Run("raw", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text(markdownAnswer)}})
		dir := t.TempDir()
		writeFile(t, dir, ".coder/config.json", `{"ui": {"markdown": false}}`)
		s := startTmuxAt(t, 60, srv, dir, nil)
		s.typeText("why")
		s.keys("Enter")
		s.waitFor("# Fixing the sign")
		s.waitFor("The bug is in **Add**: it *subtracts*")
		s.waitFor("| Subtract | -1 |")
	})
}

// A resumed session shows where it stands, once; leaving says how to come
// back.
func TestREPLResumeReplayAndExitHint(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"notes.txt"}`)),
		llmtest.Text("Apples noted."),
		llmtest.Text("Still apples."),
	}})
	dir := t.TempDir()
	writeFile(t, dir, "notes.txt", "apples\n")
	s := startTmux(t, srv, dir, nil)
	s.typeText("remember the apples")
	s.keys("Enter")
	s.waitFor("Apples noted.")
	scr := s.exitAfterTurn()
	m := regexp.MustCompile(`resume this session with: coder --resume (\S+)`).FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no resume hint:\n%s", scr)
	}
	id := m[1]

	s2 := startTmux(t, srv, dir, nil, "--continue")
	scr = s2.waitFor("resumed session " + id + " (4 messages)")
	for _, want := range []string{"[history] session " + id + " · remember the apples", "> remember the apples", "✓ read notes.txt", "  Apples noted."} {
		if !strings.Contains(scr, want) {
			t.Fatalf("replay lacks %q:\n%s", want, scr)
		}
	}
	s2.typeText("/resume " + id)
	s2.keys("Enter")
	scr = s2.waitCount("resumed session "+id, 2)
	if n := strings.Count(scr, "[history] session "+id); n != 2 {
		t.Fatalf("%d resumed lines for 2 resumes:\n%s", n, scr)
	}
}

// The end of a turn says the session's total and how full the context is;
// a ! command is one block; /undo tells the model which files it restored.
func TestREPLUsageCompactionBangAndUndo(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("write", `{"path":"a.txt","content":"new\n"}`)),
		llmtest.Text("Wrote it."),
		llmtest.Text("a.txt is gone again."),
	}})
	dir := t.TempDir()
	writeFile(t, dir, ".coder/config.json", `{"runtime": {"context_token_limit": 20000}, "workflow": {"auto_verify_after_edit": false}}`)
	s := startTmux(t, srv, dir, nil, "--permissions", "yolo")
	s.typeText("write a.txt")
	s.keys("Enter")
	s.waitFor("Wrote it.")
	scr := s.waitFor("2 steps · ")
	if !regexp.MustCompile(`2 steps · [\d.]+m?s · in [\d.]+k? · out \d+ · session [\d.]+k tokens · context \d+% of 20k`).MatchString(scr) {
		t.Fatalf("no usage line with the session and the context share:\n%s", scr)
	}
	s.typeText("/undo")
	s.keys("Enter")
	s.waitFor("undid the last change to:\n  a.txt")
	s.typeText("! echo one block")
	s.keys("Enter")
	scr = s.waitFor("[COMMAND]\n$ echo one block\nexit=0")
	if strings.Contains(scr, "[tool] bash") {
		t.Fatalf("a ! command showed a tool line too:\n%s", scr)
	}
	s.typeText("what now")
	s.keys("Enter")
	s.waitFor("a.txt is gone again.")
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Messages()
	found := false
	for _, m := range msgs {
		if m.Role == "user" && strings.Contains(m.Text, "/undo") && strings.Contains(m.Text, "a.txt") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the request after /undo has no note: %+v", msgs)
	}
}
