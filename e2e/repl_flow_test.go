//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// The flow of a session (issue 26): the queue after front-end commands,
// plan mode's questions, and the smaller things a daily user trips on.

// slowText streams for about three seconds: time to queue inputs behind
// it on a loaded machine.
func slowText(text string) llmtest.Step {
	return llmtest.Step{Text: text + strings.Repeat(" and so on", 6), ChunkSize: 3, TokenDelay: 100 * time.Millisecond}
}

// flat is s with every run of white space one space: rows the REPL
// wrapped itself compare with the text.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// waitFlat waits until the screen, flattened, holds want.
func (s *tmuxSession) waitFlat(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.screen()
		if strings.Contains(flat(scr), want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q:\n%s", want, scr)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// visible is the pane as it shows now, without its scrollback.
func (s *tmuxSession) visible() string { return s.tmux("capture-pane", "-p", "-t", "0") }

// After a queued /output, /clear or /exit the queue goes on at once: what
// was queued behind them runs in order, with no input needed.
func TestREPLQueueGoesOnAfterFrontCommands(t *testing.T) {
	for _, cols := range []int{40, 120} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				slowText("first answer, streamed slowly"), llmtest.Text("second answer"),
				slowText("third answer, streamed slowly"), llmtest.Text("fourth answer"),
				slowText("fifth answer, streamed slowly"), llmtest.Text("never asked for"),
			}})
			dir := t.TempDir()
			s := startTmuxAt(t, cols, srv, dir, nil)
			queue := func(inputs ...string) {
				for _, in := range inputs {
					s.typeText(in)
					s.keys("Enter")
					s.waitFor("queued: " + in)
				}
			}
			s.typeText("one")
			s.keys("Enter")
			s.waitFor("[ANSWER]")
			queue("/output", "two")
			scr := s.waitFor("second answer")
			if i, j := strings.Index(scr, "no tool call yet in this session"), strings.Index(scr, "second answer"); i < 0 || i > j {
				t.Fatalf("/output did not run before the next input:\n%s", scr)
			}
			s.waitNoStatus()

			s.typeText("three")
			s.keys("Enter")
			s.waitFor("[ANSWER]\nthird")
			queue("/clear", "four")
			s.waitFor("fourth answer")
			if v := s.visible(); strings.Contains(v, "second answer") || strings.Contains(v, "queued:") {
				t.Fatalf("after the queued /clear:\n%s", v)
			}
			s.waitNoStatus()

			s.typeText("five")
			s.keys("Enter")
			s.waitFor("[ANSWER]\nfifth")
			queue("/exit", "never")
			s.waitFor("[exited 0]")
			if n := len(srv.Requests()); n != 5 {
				t.Fatalf("%d model calls, want 5", n)
			}
		})
	}
}

// In plan mode a command's approval says the workspace is read-only, and
// every approval shows the answers, "n <why>" included; the plan is
// rendered as Markdown.
func TestREPLPlanModeSaysWhatWillHappen(t *testing.T) {
	for _, cols := range []int{40, 120} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call("bash", `{"command":"touch made.txt"}`)),
				llmtest.Calls(llmtest.Call("exit_plan_mode", `{"plan":"# The plan\n\n1. **create** `+"`store.go`"+`\n2. test it"}`)),
				llmtest.Text("Built."),
			}})
			dir := t.TempDir()
			s := startTmuxAt(t, cols, srv, dir, nil, "--mode", "plan")
			s.typeText("plan a store")
			s.keys("Enter")
			scr := s.waitFlat("Approve? (y/n)")
			for _, want := range []string{
				`plan mode: the sandbox keeps the workspace read-only, so if this command writes there it fails ("Read-only file system")`,
				"n <why>: refuse and tell the model why",
			} {
				if !strings.Contains(flat(scr), want) {
					t.Fatalf("the question lacks %q:\n%s", want, scr)
				}
			}
			s.typeText("n not while planning")
			s.keys("Enter")
			scr = s.waitFlat("[Question] Start building with this plan?")
			if res := results(t, srv, 0); len(res) != 1 || !strings.Contains(res[0], "not while planning") {
				t.Fatalf("the refusal's reason: %q", res)
			}
			plan := scr[strings.LastIndex(scr, "[PLAN]"):]
			plan = plan[:strings.Index(plan, "[Question]")]
			if !strings.Contains(plan, "The plan") || !strings.Contains(flat(plan), "1. create store.go") ||
				strings.ContainsAny(plan, "*`#") {
				t.Fatalf("the plan is not rendered:\n%s", plan)
			}
			s.typeText("1")
			s.keys("Enter")
			s.waitFor("Built.")
		})
	}
}

// descriptionWords are the words of the tools' descriptions, as written.
func descriptionWords(t *testing.T) map[string]bool {
	t.Helper()
	words := map[string]bool{}
	files, _ := filepath.Glob("../internal/*/description/*.md")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range strings.Fields(string(b)) {
			words[w] = true
		}
	}
	return words
}

// The smaller things: start-up keeps the shell's lines; @files are
// confirmed; /compact says why it has nothing to do; a failed !command
// is red; /tools rows wrap at words; /tasks shows run time; an approved
// change's diff shows once.
func TestREPLSmallerThings(t *testing.T) {
	words := descriptionWords(t)
	for _, cols := range []int{40, 120} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				llmtest.Text("read it"),
				llmtest.Calls(llmtest.Call("bash", `{"command":"sleep 0.2; echo done","background":true}`)),
				llmtest.Text("started"),
				llmtest.Calls(llmtest.Call("write", `{"path":"hello.go","content":"package hello\n"}`)),
				llmtest.Text("written"),
			}})
			dir := t.TempDir()
			writeFile(t, dir, "notes.txt", "apples\n")
			s := launchTmuxWith(t, cols, srv, dir, nil, func(coder string) string {
				return "echo shell line A; echo shell line B\n" + coder + "\necho \"[exited $?]\"\nsleep 60\n"
			}, "--permissions", "yolo")
			s.waitFor("context: ")
			if v := strings.Split(s.visible(), "\n"); v[0] != "shell line A" || v[1] != "shell line B" {
				t.Fatalf("start-up scrolled the shell away:\n%s", strings.Join(v, "\n"))
			}
			if h := strings.TrimSpace(s.tmux("display", "-p", "-t", "0", "#{history_size}")); h != "0" {
				t.Fatalf("%s rows went into the scrollback at start-up", h)
			}

			s.typeText("/compact")
			s.keys("Enter")
			s.waitFlat("nothing to compact yet: the history holds 0 messages, and compaction keeps the latest 10 as they are (compaction.recent_messages) and summarises only older ones")

			s.typeText("summarise @notes.txt")
			s.keys("Enter")
			s.waitFor("read it")
			s.waitFor("attached: notes.txt")

			s.typeText("! true")
			s.keys("Enter")
			s.waitFor("exit=0")
			s.typeText("! false")
			s.keys("Enter")
			s.waitFor("exit=1")
			esc := s.tmux("capture-pane", "-p", "-e", "-J", "-S", "-", "-t", "0")
			if !strings.Contains(esc, "\x1b[34m[COMMAND]") || !strings.Contains(esc, "\x1b[31m[COMMAND]") || !strings.Contains(esc, "\x1b[31mexit=1") {
				t.Fatalf("[COMMAND] colours:\n%q", esc[max(len(esc)-1500, 0):])
			}

			s.typeText("/tools")
			s.keys("Enter")
			scr := s.waitFor("Tools in build mode:")
			s.waitPrompt(5, "")
			scr = s.tmux("capture-pane", "-p", "-S", "-", "-t", "0") // rows as drawn, not joined
			list := scr[strings.LastIndex(scr, "Tools in build mode:"):]
			list = list[strings.Index(list, "\n")+1 : strings.LastIndex(list, "context: ")]
			for _, row := range strings.Split(strings.TrimRight(list, "\n"), "\n") {
				if len([]rune(row)) > cols {
					t.Fatalf("row wider than %d: %q", cols, row)
				}
				for _, w := range strings.Fields(row)[1:] {
					if !words[w] && !strings.HasPrefix(w, "mcp__") {
						t.Fatalf("%q is not a word of the descriptions (cut mid-word?):\n%s", w, list)
					}
				}
			}

			s.typeText("start a task")
			s.keys("Enter")
			s.waitFor("[ANSWER]\nstarted")
			// The run time stops at the task's end: once it ended, two
			// listings seconds apart show the same (an age would grow).
			ran := regexp.MustCompile(`task-1 exited 0 (\d+)s sleep 0\.2; echo done`)
			listings := 0
			listTasks := func() []string {
				listings++
				s.typeText("/tasks")
				s.keys("Enter")
				s.waitCount("id       status", listings)
				s.waitPrompt(listings+6, "")
				var times []string
				for _, m := range ran.FindAllStringSubmatch(flat(s.screen()), -1) {
					times = append(times, m[1])
				}
				return times
			}
			var times []string
			for deadline := time.Now().Add(15 * time.Second); len(times) == 0; times = listTasks() {
				if time.Now().After(deadline) {
					t.Fatalf("the task never ended:\n%s", s.screen())
				}
				time.Sleep(300 * time.Millisecond)
			}
			time.Sleep(2 * time.Second)
			if later := listTasks(); len(later) != len(times)+1 || later[len(later)-1] != times[0] {
				t.Fatalf("run times %q then %q:\n%s", times, later, s.screen())
			}

			s.typeText("/permissions strict")
			s.keys("Enter")
			s.waitFor("permissions: strict")
			s.typeText("write hello.go")
			s.keys("Enter")
			s.waitFor("Approve? (y/n")
			s.typeText("y")
			s.keys("Enter")
			scr = s.waitFor("written")
			if n := strings.Count(scr, "+package hello"); n != 1 {
				t.Fatalf("the diff shows %d times:\n%s", n, scr)
			}
		})
	}
}
