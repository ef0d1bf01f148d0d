//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/lockfile"
)

// blockingCall is a bash call that says it started (a file) and then
// waits until the test lets it go on (another file).
func blockingCall(dir string) llmtest.ToolCall {
	return bashCall("touch started; while [ ! -e go-on ]; do sleep 0.05; done; echo went-on")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestSessionOneOwnerAtATime: while one coder runs a session (--continue,
// in the middle of a tool call), a second `--continue` is refused with a
// message naming the first's pid, and neither crashes nor marks the live
// call interrupted (the UNIQUE messages.seq crash of two --continue at
// once); a second coder on a new session starts fine meanwhile; once the
// first has ended the session resumes fine.
func TestSessionOneOwnerAtATime(t *testing.T) {
	dir := planWorkspace(t)
	first := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("first turn")}})
	if res := (run{args: []string{"-p", "hello"}, env: providerEnv(t, first, "openai"), dir: dir}.exec(t)); res.code != 0 {
		t.Fatalf("first turn: %+v", res)
	}

	liveSrv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Calls(blockingCall(dir)), llmtest.Text("live done")}})
	live := run{args: []string{"--continue", "-p", "wait"}, env: providerEnv(t, liveSrv, "openai"), dir: dir}.start(t)
	waitFor(t, "the live call to start", func() bool { return fileExists(filepath.Join(dir, "started")) })

	second := llmtest.NewServer(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{llmtest.Text("second")}})
	env2 := providerEnv(t, second, "openai")
	for _, args := range [][]string{{"--continue", "-p", "me too"}, {"--continue", "-p", "/undo"}} {
		res := run{args: args, env: env2, dir: dir}.exec(t)
		pid := strconv.Itoa(live.cmd.Process.Pid)
		if res.code == 0 || !strings.Contains(res.stderr, "in use by another coder (process "+pid+")") {
			t.Fatalf("coder %v while the session is live: not refused naming pid %s: %+v", args, pid, res)
		}
	}
	if n := len(second.Requests()); n != 0 {
		t.Fatalf("a refused coder called the model %d times", n)
	}
	// Positive control: a new session starts fine beside the live one.
	if res := (run{args: []string{"-p", "new session"}, env: env2, dir: dir}.exec(t)); res.code != 0 || res.stdout != "second\n" {
		t.Fatalf("a second coder on a new session: %+v", res)
	}

	writeFile(t, dir, "go-on", "")
	if err := live.cmd.Wait(); err != nil {
		t.Fatalf("the live coder failed: %v\n%s", err, live.stderr.String())
	}
	if strings.Contains(live.stderr.String(), "UNIQUE") {
		t.Fatalf("the live coder crashed on the store: %s", live.stderr.String())
	}
	if r := results(t, liveSrv, 0); len(r) != 1 || !strings.Contains(r[0], "went-on") {
		t.Fatalf("the live call's result: %q", r)
	}
	// The first has ended: its session resumes (the latest is the new one,
	// so by id), and its history holds the call's real result.
	id := sessionIDOf(t, dir, "hello")
	resumed := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("resumed")}})
	res := run{args: []string{"--resume", id, "-p", "again"}, env: providerEnv(t, resumed, "openai"), dir: dir}.exec(t)
	if res.code != 0 || strings.Contains(res.stderr, "interrupted") {
		t.Fatalf("resuming after the owner ended: %+v", res)
	}
	if msgs := resumed.Requests()[0].Messages(); !historyHas(msgs, "went-on") {
		t.Fatalf("the resumed history lost the live call's result: %+v", msgs)
	}
}

// TestSessionResumesAfterItsOwnerIsKilled: a SIGKILLed owner leaves no
// lock behind (the kernel drops it): the session resumes at once, with the
// killed call reported as started with an unknown outcome.
func TestSessionResumesAfterItsOwnerIsKilled(t *testing.T) {
	dir := planWorkspace(t)
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Calls(blockingCall(dir)), llmtest.Text("never")}})
	live := run{args: []string{"-p", "wait"}, env: providerEnv(t, srv, "openai"), dir: dir}.start(t)
	waitFor(t, "the live call to start", func() bool { return fileExists(filepath.Join(dir, "started")) })
	live.kill(t)
	writeFile(t, dir, "go-on", "") // lets the orphaned command end, if it outlived coder

	again := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("resumed")}})
	res := run{args: []string{"--continue", "-p", "again"}, env: providerEnv(t, again, "openai"), dir: dir}.exec(t)
	if res.code != 0 || res.stdout != "resumed\n" || !strings.Contains(res.stderr, "outcome is unknown") {
		t.Fatalf("resuming after SIGKILL: %+v", res)
	}
}

// TestPatchOfALiveCoderIsLeftAlone: a patch journal whose lock a live
// process holds (another coder in the middle of a 600-file patch) is
// neither finished nor undone by a second coder's start; once that
// process is gone, the next start finishes it (positive control).
func TestPatchOfALiveCoderIsLeftAlone(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", "old\n")
	staged := filepath.Join(dir, ".a.txt.tmp-live")
	writeFile(t, dir, ".a.txt.tmp-live", "new\n")
	journal := filepath.Join(dir, ".coder", "journal")
	lock, err := lockfile.TryLock(filepath.Join(journal, "patch-live.lock"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := json.Marshal(map[string]any{"workspace": ws, "committed": true,
		"steps": []map[string]string{{"target": filepath.Join(ws, "a.txt"), "temp": filepath.Join(ws, ".a.txt.tmp-live")}}})
	writeFile(t, journal, "patch-live.json", string(rec))

	srv := llmtest.NewServer(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{llmtest.Text("ok")}})
	env := providerEnv(t, srv, "openai")
	res := run{args: []string{"-p", "hi"}, env: env, dir: dir}.exec(t)
	if res.code != 0 || readFile(t, dir, "a.txt") != "old\n" || !fileExists(staged) || !fileExists(filepath.Join(journal, "patch-live.json")) {
		t.Fatalf("a second coder touched the live patch: a.txt %q, staged %v: %+v", readFile(t, dir, "a.txt"), fileExists(staged), res)
	}
	lock.Abandon() // the patching process dies
	res = run{args: []string{"-p", "hi"}, env: env, dir: dir}.exec(t)
	if res.code != 0 || readFile(t, dir, "a.txt") != "new\n" || fileExists(staged) || !strings.Contains(res.stderr, "finished a patch") {
		t.Fatalf("positive control: the crashed patch was not finished: a.txt %q: %+v", readFile(t, dir, "a.txt"), res)
	}
}

// sessionIDOf is the id of the session whose title starts with title.
func sessionIDOf(t *testing.T, dir, title string) string {
	t.Helper()
	res := run{args: []string{"sessions"}, env: baseEnv(t), dir: dir}.exec(t)
	for _, line := range strings.Split(res.stdout, "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.Contains(line, title) {
			return f[0]
		}
	}
	t.Fatalf("no session titled %q:\n%s", title, res.stdout)
	return ""
}

func historyHas(msgs []llmtest.Msg, text string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Text, text) {
			return true
		}
	}
	return false
}
