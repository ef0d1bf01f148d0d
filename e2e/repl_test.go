//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// tmuxSession is coder running in a real terminal (tmux), driven by keys.
type tmuxSession struct {
	t      *testing.T
	socket string
	dir    string
}

func startTmux(t *testing.T, srv *llmtest.Server, dir string, extraEnv map[string]string, args ...string) *tmuxSession {
	t.Helper()
	return startTmuxAt(t, 120, srv, dir, extraEnv, args...)
}

// startTmuxAt starts coder in a terminal cols columns wide and waits for
// its prompt. An empty value in extraEnv unsets that variable.
func startTmuxAt(t *testing.T, cols int, srv *llmtest.Server, dir string, extraEnv map[string]string, args ...string) *tmuxSession {
	t.Helper()
	s := launchTmux(t, cols, srv, dir, extraEnv, args...)
	s.waitFor("context: ")
	return s
}

// launchTmux starts coder in a terminal cols columns wide.
func launchTmux(t *testing.T, cols int, srv *llmtest.Server, dir string, extraEnv map[string]string, args ...string) *tmuxSession {
	t.Helper()
	return launchTmuxWith(t, cols, srv, dir, extraEnv, func(coder string) string {
		// Keep the pane after coder exits, so the exit status can be read.
		return coder + "\necho \"[exited $?]\"\nsleep 60\n"
	}, args...)
}

// launchTmuxWith runs in a terminal cols columns wide the script run
// makes of coder's command line, with coder's environment exported.
func launchTmuxWith(t *testing.T, cols int, srv *llmtest.Server, dir string, extraEnv map[string]string, run func(coder string) string, args ...string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it)")
	}
	env := providerEnv(t, srv, "openai")
	for k, v := range extraEnv {
		env[k] = v
		if v == "" {
			delete(env, k)
		}
	}
	env["TERM"] = "xterm-256color"
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var script strings.Builder
	for _, k := range keys {
		script.WriteString("export " + k + "=" + shellQuote(env[k]) + "\n")
	}
	coder := shellQuote(coderBin)
	for _, a := range args {
		coder += " " + shellQuote(a)
	}
	script.WriteString(run(coder))
	scriptPath := filepath.Join(t.TempDir(), "run.sh")
	if err := os.WriteFile(scriptPath, []byte(script.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, socket: fmt.Sprintf("coder-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), dir: dir}
	s.tmux("new-session", "-d", "-x", strconv.Itoa(cols), "-y", "40", "-c", dir, "/bin/bash "+scriptPath)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	return s
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys sends tmux key names (Enter, Escape, Tab, Up, C-c, …) or literal text.
func (s *tmuxSession) keys(keys ...string) {
	s.tmux(append([]string{"send-keys", "-t", "0"}, keys...)...)
}

func (s *tmuxSession) typeText(text string) { s.tmux("send-keys", "-t", "0", "-l", text) }

// screen is the whole pane including scrollback, trailing blank lines dropped.
func (s *tmuxSession) screen() string {
	return strings.TrimRight(s.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "0"), "\n ")
}

func (s *tmuxSession) waitFor(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.screen()
		if strings.Contains(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q:\n%s", want, scr)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// exitAfterTurn presses Ctrl+D until the REPL exits and returns the
// screen. The turn's last text is drawn before the turn has ended, and
// Ctrl+D on an empty line is ignored while a turn runs (it would otherwise
// end the session mid-turn), so one press right after the text can fall
// into the turn's tail.
func (s *tmuxSession) exitAfterTurn() string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s.keys("C-d")
		for next := time.Now().Add(500 * time.Millisecond); time.Now().Before(next); time.Sleep(30 * time.Millisecond) {
			if scr := s.screen(); strings.Contains(scr, "[exited 0]") {
				return scr
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("Ctrl+D never ended the REPL:\n%s", s.screen())
		}
	}
}

// waitLast waits until the last non-empty line is want.
func (s *tmuxSession) waitLast(want string) {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := lastLines(s.screen(), 1)
		if len(got) == 1 && got[0] == want {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("last line %q, want %q", got, want)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitCount waits until want appears at least n times.
func (s *tmuxSession) waitCount(want string, n int) string {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		scr := s.screen()
		if strings.Count(scr, want) >= n {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q %d times:\n%s", want, n, scr)
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// lastLines is the last n non-empty lines of the screen.
func lastLines(scr string, n int) []string {
	var out []string
	for _, l := range strings.Split(scr, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, " "))
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

func TestREPLPromptModesHistoryPasteAndCommands(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Text("first answer"),
		{Text: strings.Repeat("streaming ", 30), ChunkSize: 10, TokenDelay: 60 * time.Millisecond},
		llmtest.Text("pasted ok"),
	}})
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", "x")
	s := startTmux(t, srv, dir, nil)
	prompt := lastLines(s.screen(), 2)
	if !strings.HasPrefix(prompt[0], "context: ") || !strings.Contains(prompt[0], "tokens · model: fake-model") ||
		prompt[1] != "[build] "+dir+">" {
		t.Fatalf("two-line prompt:\n%s", strings.Join(prompt, "\n"))
	}

	s.keys("Tab")
	s.waitFor("[plan] " + dir + ">")
	s.keys("Tab")
	s.waitCount("[build] "+dir+">", 1)

	s.typeText("hello")
	s.keys("Enter")
	s.waitFor("first answer")

	// A streamed answer shows its first words before the stream ends.
	s.typeText("stream please")
	s.keys("Enter")
	scr := s.waitFor("[ANSWER]\nstreaming")
	if strings.Count(scr, "streaming") >= 30 {
		t.Fatal("the answer appeared all at once, not streamed")
	}
	s.waitCount("streaming", 30)
	s.waitCount("[build] "+dir+">", 3)

	// ↑ walks history; ↓ past the newest returns to an empty line.
	s.keys("Up")
	s.waitLast("[build] " + dir + "> stream please")
	s.keys("Up")
	s.waitLast("[build] " + dir + "> hello")
	s.keys("Up")
	s.waitLast("[build] " + dir + "> hello")
	s.keys("Down")
	s.waitLast("[build] " + dir + "> stream please")
	s.keys("Down")
	s.waitLast("[build] " + dir + ">")

	// A bracketed paste of five lines.
	s.tmux("set-buffer", "line1\nline2\nline3\nline4\nline5")
	s.tmux("paste-buffer", "-p", "-t", "0")
	s.waitFor("[Pasted text #1 +5 lines]")
	s.keys("Enter")
	s.waitFor("pasted ok")
	msgs := srv.Requests()[2].Messages()
	if got := msgs[len(msgs)-1].Text; got != "line1\nline2\nline3\nline4\nline5" {
		t.Fatalf("paste sent %q", got)
	}

	s.typeText("! ls")
	s.keys("Enter")
	s.waitFor("[COMMAND]\n$ ls\nexit=0")

	s.typeText("/model other-model")
	s.keys("Enter")
	s.waitFor("model: other-model (saved to ")
	s.waitFor("tokens · model: other-model\n[build]")
	b, _ := os.ReadFile(filepath.Join(dir, ".coder", "config.json"))
	if !strings.Contains(string(b), `"model": "other-model"`) {
		t.Fatalf("/model not persisted: %s", b)
	}

	s.keys("C-d")
	s.waitFor("[exited 0]")
}

func TestREPLSessionsCommands(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("one"), llmtest.Text("two")}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	s.typeText("remember the first session")
	s.keys("Enter")
	s.waitFor("one")
	s.typeText("/sessions")
	s.keys("Enter")
	id := sessionIDFrom(t, s.waitFor("UTC+08:00"))

	s.typeText("/new")
	s.keys("Enter")
	s.waitFor("new session ")
	s.typeText("/resume " + id)
	s.keys("Enter")
	s.waitFor("resumed session " + id + " (2 messages)")
	s.typeText("and again")
	s.keys("Enter")
	s.waitFor("two")
	msgs := srv.Requests()[1].Messages()
	if len(msgs) != 3 || msgs[0].Text != "remember the first session" {
		t.Fatalf("resumed history %+v", msgs)
	}
	s.typeText("/resume nope")
	s.keys("Enter")
	s.waitFor(`no session "nope"`)
}

// sessionIDFrom finds the first session id in a /sessions listing.
func sessionIDFrom(t *testing.T, scr string) string {
	t.Helper()
	for _, f := range strings.Fields(scr) {
		if len(f) == 22 && f[8] == '-' && f[15] == '-' {
			return f
		}
	}
	t.Fatalf("no session id in:\n%s", scr)
	return ""
}

func TestREPLEscCancelsToolAndStream(t *testing.T) {
	// The sleep is found by its marker: in the sandbox's PID namespace $!
	// is not a PID outside.
	m := marker()
	t.Cleanup(func() { killMarked(m) })
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"sleep `+m+` & echo $! > sleep.pid; wait"}`)),
		{Text: strings.Repeat("slow ", 200), ChunkSize: 5, TokenDelay: 50 * time.Millisecond, Check: validHistory},
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	cancelled := "Cancelled by ESC\nStopped model stream and tool execution; todo state remains unchanged unless a tool had already completed."

	s.typeText("sleep a while")
	s.keys("Enter")
	// The redirection makes it a policy ask under the balanced preset.
	s.waitFor("Approve? (y/n/always)")
	s.typeText("y")
	s.keys("Enter")
	pidFile := filepath.Join(dir, "sleep.pid")
	waitFor(t, "sleep to start", func() bool { b, _ := os.ReadFile(pidFile); return len(strings.TrimSpace(string(b))) > 0 })
	if len(markerPIDs("sleep", m)) == 0 {
		t.Fatal("positive control: the sleep is not seen running")
	}
	s.keys("Escape")
	s.waitFor(cancelled)
	waitFor(t, "the sleep child to die", func() bool { return len(markerPIDs("sleep", m)) == 0 })

	s.typeText("talk slowly")
	s.keys("Enter")
	s.waitFor("[ANSWER]\nslow")
	s.keys("Escape")
	scr := s.waitCount(cancelled, 2)
	if strings.Count(scr, "slow") >= 200 {
		t.Fatal("the stream was not stopped")
	}

	// The next prompt works normally.
	s.typeText("! echo still alive")
	s.keys("Enter")
	s.waitFor("stdout:\nstill alive")
}

func TestREPLCtrlCExits(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Text: strings.Repeat("slow ", 200), ChunkSize: 5, TokenDelay: 50 * time.Millisecond},
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	s.typeText("talk")
	s.keys("Enter")
	s.waitFor("[ANSWER]\nslow")
	s.keys("C-c")
	s.waitFor("[exited 130]")
	// The interrupted answer was flushed to the session.
	snaps, _ := filepath.Glob(filepath.Join(dir, ".coder", "sessions", "*.json"))
	if len(snaps) != 1 {
		t.Fatalf("%d session snapshots", len(snaps))
	}
	b, _ := os.ReadFile(snaps[0])
	if !strings.Contains(string(b), `"interrupted": true`) || !strings.Contains(string(b), `"content": "slow`) {
		t.Fatalf("partial answer not saved as interrupted:\n%s", b)
	}
}

func TestREPLApprovalAlwaysIsRemembered(t *testing.T) {
	touch := llmtest.Calls(llmtest.Call("bash", `{"command":"touch made.txt"}`))
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		touch, llmtest.Text("made it"),
		touch, llmtest.Text("made it again"),
		touch, llmtest.Text("made it after a restart"),
	}})
	dir := t.TempDir()
	home := baseEnv(t) // one person across both starts
	env := map[string]string{"HOME": home["HOME"], "XDG_CONFIG_HOME": home["XDG_CONFIG_HOME"]}
	s := startTmux(t, srv, dir, env)
	s.typeText("make the file")
	s.keys("Enter")
	s.waitFor("[approval] bash: touch made.txt\n  bash: \"touch made.txt\" requires approval")
	s.waitFor("Approve? (y/n/always)")
	s.typeText("always")
	s.keys("Enter")
	s.waitFor("made it")
	b, _ := os.ReadFile(filepath.Join(dir, ".coder", "config.json"))
	if !strings.Contains(string(b), `"touch made.txt"`) {
		t.Fatalf("always not persisted:\n%s", b)
	}

	s.typeText("make it again")
	s.keys("Enter")
	scr := s.waitFor("made it again")
	if n := strings.Count(scr, "Approve?"); n != 1 {
		t.Fatalf("asked %d times, want once:\n%s", n, scr)
	}
	s.exitAfterTurn()

	// A new process reads the allowlist from ./.coder/config.json without
	// asking to trust it: coder wrote it as the person's answer (issue 26
	// item 7).
	s2 := startTmux(t, srv, dir, env)
	if scr := s2.screen(); strings.Contains(scr, "(y/n)") {
		t.Fatalf("asked to trust coder's own entry:\n%s", scr)
	}
	s2.typeText("once more")
	s2.keys("Enter")
	scr = s2.waitFor("made it after a restart")
	if strings.Contains(scr, "Approve?") {
		t.Fatalf("asked again after a restart:\n%s", scr)
	}
}

func TestREPLDangerAsksYesNoOnly(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"git push --force origin main"}`)),
		llmtest.Text("ok, not pushed"),
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	s.typeText("push it")
	s.keys("Enter")
	s.waitFor("force")
	s.waitFor("Approve? (y/n)")
	s.typeText("always")
	s.keys("Enter")
	s.waitFor("Approve? (y/n)") // not accepted: asked again
	s.typeText("n because not now")
	s.keys("Enter")
	s.waitFor("ok, not pushed")
	res := lastToolResults(srv.Requests()[1])
	if len(res) != 1 || !strings.Contains(res[0].Text, "not now") || !strings.Contains(res[0].Text, `"ok":false`) {
		t.Fatalf("denial with feedback: %+v", res)
	}
}

func TestREPLQuestionsAndExitPlanMode(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("question", `{"questions":[
			{"question":"Which storage?","options":[{"label":"SQLite","description":"one file"},{"label":"Postgres"},{"label":"Files"}]},
			{"question":"Name of the table?","options":[{"label":"items"},{"label":"things"}]}]}`)),
		llmtest.Calls(llmtest.Call("exit_plan_mode", `{"plan":"1. create store.go\n2. test it"}`)),
		llmtest.Calls(llmtest.Call("write", `{"path":"store.go","content":"package store\n"}`)),
		llmtest.Text("Built it."),
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil, "--mode", "plan")
	s.typeText("plan a store")
	s.keys("Enter")
	s.waitFor("[Question 1/2] Which storage?\n  1. SQLite (Recommended) — one file\n  2. Postgres\n  3. Files")
	s.keys("Enter") // an empty Enter waits
	s.typeText("2")
	s.keys("Enter")
	s.waitFor("[Question 2/2] Name of the table?")
	s.typeText("my own words")
	s.keys("Enter")
	s.waitFor("[PLAN]\n1. create store.go")
	s.waitFor("[Question] Start building with this plan?")
	s.typeText("1")
	s.keys("Enter")
	s.waitFor("Built it.")
	s.waitFor("[build] " + dir + ">")
	res := lastToolResults(srv.Requests()[1])
	if len(res) != 1 || !strings.Contains(res[0].Text, `"answer":"Postgres"`) || !strings.Contains(res[0].Text, `"answer":"my own words"`) {
		t.Fatalf("answers: %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "store.go")); err != nil || string(b) != "package store\n" {
		t.Fatalf("build mode did not write after approval: %q %v", b, err)
	}
	names := strings.Join(srv.Requests()[2].ToolNames(), ",")
	if !strings.Contains(names, "write") || strings.Contains(names, "exit_plan_mode") {
		t.Fatalf("tools after approval: %s", names)
	}
}

func TestREPLQuestionEscDismisses(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("question", `{"questions":[{"question":"Pick one","options":[{"label":"a"},{"label":"b"}]}]}`)),
		llmtest.Text("Fine, I will choose myself."),
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil, "--mode", "plan")
	s.typeText("ask me")
	s.keys("Enter")
	s.waitFor("[Question] Pick one")
	s.keys("Escape")
	s.waitFor("Fine, I will choose myself.")
	if res := lastToolResults(srv.Requests()[1]); len(res) != 1 || !strings.Contains(res[0].Text, "cancelled the questions") {
		t.Fatalf("dismissal result %+v", res)
	}
}

func TestREPLWideCharsAndLongLines(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("answer-received")}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	prompt := "[build] " + dir + "> "
	// CJK characters are two cells wide; editing in the middle must not smear.
	s.typeText("请修复这个函数")
	s.keys("Left", "Left", "BSpace")
	s.typeText("那")
	s.waitLast(prompt + "请修复这那函数")
	s.keys("End", "C-u")
	// A line longer than the terminal wraps; editing keeps every row right.
	long := strings.Repeat("abcdefghij", 25) // 250 cells on a 120-cell terminal
	s.typeText(long)
	s.keys("Home", "Delete", "End", "BSpace")
	want := prompt + long[1:len(long)-1]
	scr := s.screen()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(strings.ReplaceAll(scr, "\n", ""), want) {
		if time.Now().After(deadline) {
			t.Fatalf("wrapped line corrupted:\n%s", scr)
		}
		time.Sleep(50 * time.Millisecond)
		scr = s.screen()
	}
	if n := strings.Count(scr, "context: "); n != 1 {
		t.Fatalf("the prompt was drawn %d times:\n%s", n, scr)
	}
	s.keys("Enter")
	s.waitFor("answer-received")
	msgs := srv.Requests()[0].Messages()
	if got := msgs[len(msgs)-1].Text; got != long[1:len(long)-1] {
		t.Fatalf("sent %q", got)
	}
}
