//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// threeTurns scripts three turns: turn 1 writes a.txt, turn 2 rewrites it
// and writes b.txt, turn 3 changes c.txt with bash; then, after the
// rewind, a fourth request whose history must hold turn 1 only.
func threeTurns() []llmtest.Step {
	historyIsTurnOne := func(r llmtest.Request) error {
		var users []string
		for _, m := range r.Messages() {
			if m.Role == "user" {
				users = append(users, m.Text)
			}
		}
		if len(users) != 2 || !strings.HasPrefix(users[0], "first: write a") || !strings.HasPrefix(users[1], "fourth") {
			return fmt.Errorf("the history after the rewind holds %q", users)
		}
		return nil
	}
	return []llmtest.Step{
		llmtest.Calls(llmtest.Call("write", `{"path":"a.txt","content":"one\n"}`)),
		llmtest.Text("turn one done"),
		llmtest.Calls(llmtest.Call("write", `{"path":"a.txt","content":"two\n"}`), llmtest.Call("write", `{"path":"b.txt","content":"bee\n"}`)),
		llmtest.Text("turn two done"),
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo three >> c.txt"}`)),
		llmtest.Text("turn three done"),
		{Text: "turn four done", Check: historyIsTurnOne},
	}
}

var turnInputs = []string{"first: write a", "second: rewrite a and add b", "third: change c"}

// TestREPLRewindToTurnOne: three turns in a real terminal, then Esc Esc
// opens the picker; back to before turn 2, code and conversation: the
// files are as turn 1 left them (bash's change undone too), turn 2's
// request is back in the prompt, and after a restart the session's
// history is turn 1's — the model sees nothing of turns 2 and 3.
func TestREPLRewindToTurnOne(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: threeTurns()})
	dir := t.TempDir()
	writeFile(t, dir, "c.txt", "see\n")
	s := startTmux(t, srv, dir, nil, "--permissions", "yolo")
	for i, in := range turnInputs {
		s.typeText(in)
		s.keys("Enter")
		s.waitFor([]string{"turn one done", "turn two done", "turn three done"}[i])
		s.waitCount("[build] "+dir+">", i+2)
	}
	if readFile(t, dir, "a.txt") != "two\n" || readFile(t, dir, "c.txt") != "see\nthree\n" {
		t.Fatal("the turns did not change the files")
	}
	s.keys("Escape")
	s.keys("Escape")
	s.waitFor("go back to before which turn?")
	s.waitFor("3. " + turnInputs[2])
	s.typeText("2")
	s.keys("Enter")
	s.waitFor("1. code and conversation")
	s.keys("Enter")
	s.waitFor("rewound to before turn 2")
	s.waitLast("[build] " + dir + "> " + turnInputs[1]) // the request, back to edit
	if got := readFile(t, dir, "a.txt"); got != "one\n" {
		t.Fatalf("a.txt = %q after the rewind", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !os.IsNotExist(err) {
		t.Fatal("b.txt, written by turn 2, is still there")
	}
	if got := readFile(t, dir, "c.txt"); got != "see\n" {
		t.Fatalf("c.txt = %q: bash's change in turn 3 was not undone", got)
	}
	s.keys("Escape") // clears the prompt
	s.waitLast("[build] " + dir + ">")
	s.typeText("/exit")
	s.keys("Enter")
	s.waitFor("[exited 0]")

	s2 := startTmux(t, srv, dir, nil, "--permissions", "yolo", "--continue")
	scr := s2.waitFor("[history]")
	if !strings.Contains(scr, "> "+turnInputs[0]) || strings.Contains(scr, "> "+turnInputs[1]) || strings.Contains(scr, "> "+turnInputs[2]) {
		t.Fatalf("the resumed history is not turn 1's:\n%s", scr)
	}
	// Two Escs read at once (alt+esc) open the picker too; Esc leaves it.
	s2.tmux("send-keys", "-t", "0", "-H", "1b", "1b")
	s2.waitFor("go back to before which turn?")
	s2.keys("Escape")
	s2.waitFor("rewind cancelled: nothing changed")
	s2.typeText("fourth: anything")
	s2.keys("Enter")
	s2.waitFor("turn four done")
}

// TestHeadlessRewind: --rewind N rewinds a session for automation; a file
// the person changed since is named and left; the model then sees the
// rewound history.
func TestHeadlessRewind(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: threeTurns()})
	dir := t.TempDir()
	writeFile(t, dir, "c.txt", "see\n")
	env := providerEnv(t, srv, "openai")
	for i, in := range turnInputs {
		args := []string{"-p", in, "--permissions", "yolo"}
		if i > 0 {
			args = append(args, "--continue")
		}
		if res := (run{args: args, env: env, dir: dir}).exec(t); res.code != 0 {
			t.Fatalf("turn %d: exit %d %s", i+1, res.code, res.stderr)
		}
	}
	writeFile(t, dir, "b.txt", "edited by hand\n") // after coder's last change
	res := run{args: []string{"-p", "--continue", "--rewind", "2"}, env: env, dir: dir}.exec(t)
	if res.code != 0 || !strings.Contains(res.stdout, "rewound to before turn 2") ||
		!strings.Contains(res.stdout, "left as they are (changed since coder last wrote them): b.txt") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.code, res.stdout, res.stderr)
	}
	if readFile(t, dir, "a.txt") != "one\n" || readFile(t, dir, "c.txt") != "see\n" || readFile(t, dir, "b.txt") != "edited by hand\n" {
		t.Fatalf("files after --rewind: a %q b %q c %q", readFile(t, dir, "a.txt"), readFile(t, dir, "b.txt"), readFile(t, dir, "c.txt"))
	}
	res = run{args: []string{"-p", "fourth: anything", "--continue"}, env: env, dir: dir}.exec(t)
	if res.code != 0 || !strings.Contains(res.stdout, "turn four done") {
		t.Fatalf("after the rewind: exit %d %s %s", res.code, res.stdout, res.stderr)
	}
	// --rewind needs a session to rewind.
	res = run{args: []string{"-p", "--rewind", "1"}, env: env, dir: dir}.exec(t)
	if res.code != 2 || !strings.Contains(res.stderr, "--rewind goes with --resume ID or --continue") {
		t.Fatalf("without a session: exit %d %s", res.code, res.stderr)
	}
}
