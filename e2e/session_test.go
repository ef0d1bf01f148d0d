//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// validHistory is a Check that accepts a request only when every tool call
// has exactly one result and no result lacks its call — what real APIs demand.
func validHistory(r llmtest.Request) error {
	msgs := r.Messages()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == "tool" {
			return fmt.Errorf("message %d: tool result %s without a preceding call", i, m.ToolCallID)
		}
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]int{}
		for _, c := range m.ToolCalls {
			want[c.ID]++
		}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			if want[msgs[j].ToolCallID]--; want[msgs[j].ToolCallID] < 0 {
				return fmt.Errorf("message %d: unexpected or duplicate result for %s", j, msgs[j].ToolCallID)
			}
		}
		for id, n := range want {
			if n != 0 {
				return fmt.Errorf("message %d: call %s has no result", i, id)
			}
		}
		i = j - 1
	}
	return nil
}

// started is a coder process running in the background.
type started struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

func (r run) start(t *testing.T) *started {
	t.Helper()
	s := &started{cmd: exec.Command(coderBin, r.args...)}
	s.cmd.Dir = r.dir
	for k, v := range r.env {
		s.cmd.Env = append(s.cmd.Env, k+"="+v)
	}
	s.cmd.Stdout, s.cmd.Stderr = &s.stdout, &s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.cmd.Process.Kill(); _ = s.cmd.Wait() })
	return s
}

func (s *started) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = s.cmd.Wait()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitRequests(t *testing.T, srv *llmtest.Server, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := srv.WaitRequests(ctx, n); err != nil {
		t.Fatalf("waiting for %d requests: %v", n, err)
	}
}

// killGroupFromPIDFile ends a process group a killed coder left behind.
func killGroupFromPIDFile(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

func TestCrashAndContinue(t *testing.T) {
	slow := llmtest.Step{Text: strings.Repeat("slow words ", 100), ChunkSize: 8, TokenDelay: 40 * time.Millisecond}
	cases := []struct {
		name string
		// first is the scenario of the run that gets killed.
		first llmtest.Scenario
		// killWhen waits for the moment to kill.
		killWhen func(t *testing.T, srv *llmtest.Server, dir string)
		// committed must be in the resumed history (assistant tool commands).
		committed []string
		// interrupted: the resumed history must tell the model a call never ran.
		interrupted bool
	}{
		{
			name:  "mid-stream",
			first: llmtest.Scenario{Steps: []llmtest.Step{slow}},
			killWhen: func(t *testing.T, srv *llmtest.Server, _ string) {
				waitRequests(t, srv, 1)
				time.Sleep(150 * time.Millisecond)
			},
		},
		{
			name: "mid-tool",
			first: llmtest.Scenario{Steps: []llmtest.Step{llmtest.Calls(llmtest.Call("bash",
				`{"command":"echo ran >> count.txt; echo $$ > pid.txt; sleep 30"}`))}},
			killWhen: func(t *testing.T, _ *llmtest.Server, dir string) {
				waitFor(t, "the tool to start", func() bool { _, err := os.Stat(filepath.Join(dir, "pid.txt")); return err == nil })
			},
			committed:   []string{"echo ran >> count.txt"},
			interrupted: true,
		},
		{
			name: "between steps",
			first: llmtest.Scenario{Steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call("bash", `{"command":"echo ran >> count.txt"}`)),
				{Text: "never finished", TokenDelay: 5 * time.Second},
			}},
			killWhen:  func(t *testing.T, srv *llmtest.Server, _ string) { waitRequests(t, srv, 2) },
			committed: []string{"echo ran >> count.txt"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			srv1, err := llmtest.Start(c.first)
			if err != nil {
				t.Fatal(err)
			}
			defer srv1.Close()
			p := run{args: []string{"-p", "the task"}, env: providerEnv(t, srv1, "openai"), dir: dir}.start(t)
			c.killWhen(t, srv1, dir)
			p.kill(t)
			killGroupFromPIDFile(t, filepath.Join(dir, "pid.txt"))

			srv2 := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: "resumed fine", Check: validHistory}}})
			res := run{args: []string{"--continue", "-p", "go on"}, env: providerEnv(t, srv2, "openai"), dir: dir}.exec(t)
			if res.code != 0 || strings.TrimSpace(res.stdout) != "resumed fine" {
				t.Fatalf("continue: exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
			}
			assertResumedHistory(t, srv2.Requests()[0], c.committed, c.interrupted)
			if c.committed != nil {
				if got := readFile(t, dir, "count.txt"); got != "ran\n" {
					t.Fatalf("count.txt = %q: a tool ran again after resume", got)
				}
			}
		})
	}
}

// assertResumedHistory checks the request after --continue carries the first
// run's committed messages, then the new input.
func assertResumedHistory(t *testing.T, r llmtest.Request, committed []string, interrupted bool) {
	t.Helper()
	msgs := r.Messages()
	if len(msgs) < 2 || msgs[0].Role != "user" || msgs[0].Text != "the task" || msgs[len(msgs)-1].Text != "go on" {
		t.Fatalf("resumed history %+v", msgs)
	}
	var calls, results strings.Builder
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			calls.WriteString(c.Args)
		}
		if m.Role == "tool" {
			results.WriteString(m.Text)
		}
	}
	for _, want := range committed {
		if !strings.Contains(calls.String(), strconv.Quote(want)[1:len(strconv.Quote(want))-1]) {
			t.Fatalf("committed call %q missing from resumed history %+v", want, msgs)
		}
	}
	if got := strings.Contains(results.String(), "interrupted"); got != interrupted {
		t.Fatalf("interrupted result present = %v, want %v; results: %s", got, interrupted, results.String())
	}
}

func TestSessionWriteFailureStopsTheRun(t *testing.T) {
	t.Run("sessions dir is a file", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, dir, ".coder/sessions", "not a directory")
		srv := llmtest.NewServer(t, llmtest.Scenario{})
		res := run{args: []string{"-p", "hi"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
		if res.code != 1 || !strings.Contains(res.stderr, "sessions") || len(srv.Requests()) != 0 {
			t.Fatalf("exit %d stderr %q, %d requests", res.code, res.stderr, len(srv.Requests()))
		}
	})
	t.Run("database is a directory", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, ".coder", "coder.db"), 0o755); err != nil {
			t.Fatal(err)
		}
		srv := llmtest.NewServer(t, llmtest.Scenario{})
		res := run{args: []string{"-p", "hi"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
		if res.code != 1 || !strings.Contains(res.stderr, "coder.db") {
			t.Fatalf("exit %d stderr %q", res.code, res.stderr)
		}
	})
	t.Run("mid-run", func(t *testing.T) {
		dir := t.TempDir()
		// The store breaks while the second model call is answered (the
		// model itself cannot touch .coder, a control directory).
		breakStore := func(llmtest.Request) error {
			sessions := filepath.Join(dir, ".coder", "sessions")
			if err := os.RemoveAll(sessions); err != nil {
				return err
			}
			return os.WriteFile(sessions, nil, 0o644)
		}
		srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
			llmtest.Calls(llmtest.Call("bash", `{"command":"echo working"}`)),
			{ToolCalls: []llmtest.ToolCall{llmtest.Call("bash", `{"command":"echo more"}`)}, Check: breakStore},
			llmtest.Text("must not be asked"),
		}})
		res := run{args: []string{"-p", "break the store", "--output-format", "stream-json"},
			env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
		if res.code != 1 || !strings.Contains(res.stdout, "session could not be saved") {
			t.Fatalf("exit %d stdout %s stderr %s", res.code, res.stdout, res.stderr)
		}
		if n := len(srv.Requests()); n != 2 {
			t.Fatalf("the run went on after a failed write: %d requests", n)
		}
	})
}

func TestResumeAndList(t *testing.T) {
	dir := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Text("first answer"),
		{Text: "second answer", Check: validHistory},
	}})
	env := providerEnv(t, srv, "anthropic")
	first := run{args: []string{"-p", "first task", "--output-format", "json"}, env: env, dir: dir}.exec(t)
	var out struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(first.stdout), &out); err != nil || out.SessionID == "" {
		t.Fatalf("first run: %v %q", err, first.stdout)
	}

	list := run{args: []string{"sessions"}, env: env, dir: dir}.exec(t)
	row := regexp.MustCompile(regexp.QuoteMeta(out.SessionID) + `\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+2\s+first task`)
	if list.code != 0 || !strings.Contains(list.stdout, "UTC+08:00") || !row.MatchString(list.stdout) {
		t.Fatalf("coder sessions:\n%s", list.stdout)
	}

	second := run{args: []string{"--resume", out.SessionID, "-p", "second task"}, env: env, dir: dir}.exec(t)
	if second.code != 0 || strings.TrimSpace(second.stdout) != "second answer" {
		t.Fatalf("resume: %d %q %q", second.code, second.stdout, second.stderr)
	}
	var texts []string
	for _, m := range srv.Requests()[1].Messages() {
		texts = append(texts, m.Role+":"+m.Text)
	}
	if got := strings.Join(texts, "|"); got != "user:first task|assistant:first answer|user:second task" {
		t.Fatalf("resumed request history %s", got)
	}

	bad := run{args: []string{"--resume", "nope-123", "-p", "x"}, env: env, dir: dir}.exec(t)
	if bad.code != 2 || !strings.Contains(bad.stderr, `no session "nope-123"`) || !strings.Contains(bad.stderr, "coder sessions") {
		t.Fatalf("unknown id: %d %q", bad.code, bad.stderr)
	}
}

func TestTwoProcessesShareAWorkspace(t *testing.T) {
	dir := t.TempDir()
	const steps = 15
	scenario := func(tag string) llmtest.Scenario {
		var sc llmtest.Scenario
		for i := range steps {
			sc.Steps = append(sc.Steps, llmtest.Calls(llmtest.Call("bash", fmt.Sprintf(`{"command":"echo %s%d >> %s.log"}`, tag, i, tag))))
		}
		sc.Steps = append(sc.Steps, llmtest.Text("done "+tag))
		return sc
	}
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i, tag := range []string{"a", "b"} {
		srv := llmtest.NewServer(t, scenario(tag))
		env := providerEnv(t, srv, "openai")
		wg.Go(func() {
			results[i] = run{args: []string{"-p", "task " + tag}, env: env, dir: dir}.exec(t)
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("process %d: exit %d stderr %s", i, r.code, r.stderr)
		}
	}
	list := run{args: []string{"sessions"}, env: baseEnv(t), dir: dir}.exec(t)
	want := fmt.Sprint(2 + 2*steps)
	for _, tag := range []string{"a", "b"} {
		if !regexp.MustCompile(`\s` + want + `\s+task ` + tag).MatchString(list.stdout) {
			t.Fatalf("session %s incomplete in listing:\n%s", tag, list.stdout)
		}
	}
	snaps, _ := filepath.Glob(filepath.Join(dir, ".coder", "sessions", "*.json"))
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots", len(snaps))
	}
	for _, p := range snaps {
		var s struct{ Messages []json.RawMessage }
		b, _ := os.ReadFile(p)
		if err := json.Unmarshal(b, &s); err != nil || len(s.Messages) != 2+2*steps {
			t.Fatalf("snapshot %s: %v, %d messages", p, err, len(s.Messages))
		}
	}
}

// TestKilledDuringACallSaysOutcomeUnknown: coder is killed while a bash
// call runs (it has already written its mark); --continue tells the model
// the call started and its outcome is unknown, never that it did not run.
// A call the kill cut off before it started is still "not executed".
func TestKilledDuringACallSaysOutcomeUnknown(t *testing.T) {
	dir := t.TempDir()
	m := marker()
	t.Cleanup(func() { killMarked(m) })
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(
			llmtest.Call("bash", fmt.Sprintf(`{"command":"echo ran >> mark.txt; sleep %s"}`, m)),
			llmtest.Call("bash", `{"command":"echo second >> mark.txt"}`),
		),
	}})
	p := run{args: []string{"-p", "go"}, env: providerEnv(t, srv, "openai"), dir: dir}.start(t)
	waitFor(t, "the call to run", func() bool { b, _ := os.ReadFile(filepath.Join(dir, "mark.txt")); return len(b) > 0 })
	p.kill(t)

	srv2 := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: "checked", Check: validHistory}}})
	res := run{args: []string{"--continue", "-p", "go on"}, env: providerEnv(t, srv2, "openai"), dir: dir}.exec(t)
	if res.code != 0 || !strings.Contains(res.stderr, "outcome unknown") {
		t.Fatalf("continue: exit %d, stderr %q", res.code, res.stderr)
	}
	var got []string
	for _, m := range srv2.Requests()[0].Messages() {
		if m.Role == "tool" {
			got = append(got, m.Text)
		}
	}
	if len(got) != 2 || !strings.Contains(got[0], "outcome is unknown") || !strings.Contains(got[1], "was not executed") {
		t.Fatalf("results after the kill: %q", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "mark.txt")); string(b) != "ran\n" {
		t.Fatalf("mark.txt = %q", b)
	}
}

// TestKilledDuringA300FilePatchIsAllOrNone: coder is SIGKILLed at random
// moments while a patch changes 300 files; after the next start every file
// is old or every file is new, and no temporary file is left.
func TestKilledDuringA300FilePatchIsAllOrNone(t *testing.T) {
	const files = 300
	body := strings.Repeat("filler line to make the write take a while\n", 200)
	var patch strings.Builder
	patch.WriteString("*** Begin Patch\n")
	for i := range files {
		fmt.Fprintf(&patch, "*** Update File: f%03d.txt\n@@\n-old %d\n+new %d\n", i, i, i)
	}
	patch.WriteString("*** End Patch")
	args, _ := json.Marshal(map[string]string{"patch": patch.String()})
	outcomes := map[string]int{}
	// Calibration: how long the patch takes here (the first request after
	// it asks for the answer), so the kills spread over it.
	var took time.Duration
	for it := -1; it < 10; it++ {
		dir := t.TempDir()
		for i := range files {
			writeFile(t, dir, fmt.Sprintf("f%03d.txt", i), fmt.Sprintf("old %d\n", i)+body)
		}
		// The files are read first, as the patch needs.
		var reads []llmtest.ToolCall
		for i := range files {
			reads = append(reads, llmtest.Call("read", fmt.Sprintf(`{"path":"f%03d.txt","limit":1}`, i)))
		}
		srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
			llmtest.Calls(reads...),
			llmtest.Calls(llmtest.Call("patch", string(args))),
			llmtest.Text("patched"),
		}})
		p := run{args: []string{"-p", "patch them"}, env: providerEnv(t, srv, "openai"), dir: dir}.start(t)
		waitRequests(t, srv, 2) // the patch call is on its way
		if it < 0 {
			start := time.Now()
			waitRequests(t, srv, 3)
			took = time.Since(start)
			p.kill(t)
			t.Logf("the patch takes about %v", took)
			continue
		}
		time.Sleep(took * time.Duration(it) / 8)
		p.kill(t)

		srv2 := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("ok")}})
		res := run{args: []string{"--continue", "-p", "go on"}, env: providerEnv(t, srv2, "openai"), dir: dir}.exec(t)
		if res.code != 0 {
			t.Fatalf("iteration %d: continue: %+v", it, res)
		}
		newCount := 0
		for i := range files {
			b := readFile(t, dir, fmt.Sprintf("f%03d.txt", i))
			if strings.HasPrefix(b, "new ") {
				newCount++
			}
		}
		if newCount != 0 && newCount != files {
			t.Fatalf("iteration %d: %d of %d files patched", it, newCount, files)
		}
		left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
		if len(left) > 0 {
			t.Fatalf("iteration %d: temporary files left: %v", it, left)
		}
		outcomes[fmt.Sprint(newCount == files)]++
	}
	t.Logf("all patched / none patched: %v", outcomes)
}
