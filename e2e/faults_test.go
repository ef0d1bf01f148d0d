//go:build e2e

package e2e

// The fault suite (issue 9): provider, tool, storage and process faults
// driven through the built binary. For every fault: no panic, a readable
// message, no lost committed data, no orphan processes.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	_ "modernc.org/sqlite"
)

// ---- helpers ---------------------------------------------------------------

// measured is a finished run with the figures the fault suite asserts on.
type measured struct {
	result
	// maxRSS is coder's own peak resident set (VmHWM of its address space,
	// sampled every few milliseconds until it exits), in bytes. The
	// rusage of wait4 is not used: on Linux a child exec'd from a vfork
	// inherits the parent's high-water mark (exec_mmap records the old
	// mm's), so it reports the test binary's RSS whenever that is larger.
	maxRSS  int64
	elapsed time.Duration
}

// execMeasured runs r like exec, with a deadline of its own, and reports
// coder's peak RSS and the wall time.
func (r run) execMeasured(t *testing.T, deadline time.Duration) measured {
	t.Helper()
	cmd := exec.Command(coderBin, r.args...)
	cmd.Dir = r.dir
	for k, v := range r.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader(r.stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var m measured
	var err error
	tick := time.NewTicker(3 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(deadline)
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-tick.C:
			m.maxRSS = max(m.maxRSS, vmHWM(cmd.Process.Pid))
		case <-timeout:
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("coder did not finish within %v (killed)\nstdout tail: %s\nstderr: %s", deadline, tail(out.String(), 2000), errb.String())
		}
	}
	m.elapsed = time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok {
		m.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running coder: %v", err)
	}
	m.stdout, m.stderr = out.String(), errb.String()
	if strings.Contains(m.stdout, testKey) || strings.Contains(m.stderr, testKey) {
		t.Fatalf("the API key appeared in coder's output")
	}
	return m
}

// vmHWM is a process's peak resident set in bytes (0 once it has exited).
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// assertNoPanic fails when a Go panic or goroutine dump reached the user.
func assertNoPanic(t *testing.T, res result) {
	t.Helper()
	for _, s := range []string{res.stdout, res.stderr} {
		if strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") || strings.Contains(s, "runtime error") {
			t.Fatalf("a panic reached the user:\nstdout: %s\nstderr: %s", tail(res.stdout, 4000), tail(res.stderr, 4000))
		}
	}
}

// assertFailedReadably: exit 1, no panic, and stderr says what happened in
// one of the given words (case-insensitive).
func assertFailedReadably(t *testing.T, res result, words ...string) {
	t.Helper()
	assertNoPanic(t, res)
	if res.code != 1 {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", res.code, tail(res.stdout, 2000), res.stderr)
	}
	// The last line is the final word: retry notices come before it.
	lines := strings.Split(strings.TrimSpace(res.stderr), "\n")
	last := strings.ToLower(lines[len(lines)-1])
	for _, w := range words {
		if strings.Contains(last, strings.ToLower(w)) {
			t.Logf("message: %s", lines[len(lines)-1])
			return
		}
	}
	t.Fatalf("stderr does not end with a message explaining the failure (want one of %q):\n%s", words, res.stderr)
}

func writeConfig(t *testing.T, dir, cfg string) {
	t.Helper()
	writeFile(t, dir, ".coder/config.json", cfg)
}

// fastProvider is a config that keeps retries and timeouts test-sized.
func fastProvider(retries, timeoutMS int) string {
	return fmt.Sprintf(`{"provider": {"max_retries": %d, "timeout_ms": %d}}`, retries, timeoutMS)
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// marker is a sleep duration no other test uses, so the processes a test
// started can be found in /proc: "sleep <marker>".
func marker() string {
	return fmt.Sprintf("31.4%07d", rand.IntN(10_000_000))
}

// markerPIDs lists live (non-zombie) processes whose command line contains
// every given word.
func markerPIDs(words ...string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 { // gone, or a zombie
			continue
		}
		cmdline := string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		all := true
		for _, w := range words {
			all = all && strings.Contains(cmdline, w)
		}
		if all {
			pids = append(pids, pid)
		}
	}
	return pids
}

// assertNoOrphans fails (without stopping the test) if any "sleep <mark>"
// survives, giving the processes a moment to die first; the survivors are
// killed so they do not outlive the test.
func assertNoOrphans(t *testing.T, mark string) {
	t.Helper()
	var left []int
	for range 50 {
		if left = markerPIDs("sleep", mark); len(left) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("orphan processes left running: sleep %s, pids %v", mark, left)
	killMarked(mark)
}

func killMarked(mark string) {
	for _, pid := range markerPIDs("sleep", mark) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// allToolResults is every tool message of the last request, in order.
func allToolResults(srv *llmtest.Server) []llmtest.Msg {
	reqs := srv.Requests()
	if len(reqs) == 0 {
		return nil
	}
	return reqs[len(reqs)-1].ToolResults()
}

// bashResult decodes the bash tool's JSON result.
type bashResult struct {
	OK         bool   `json:"ok"`
	ExitCode   int    `json:"exit_code"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	Truncated  bool   `json:"truncated"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error"`
}

func decodeBash(t *testing.T, text string) bashResult {
	t.Helper()
	var b bashResult
	if err := json.Unmarshal([]byte(text), &b); err != nil {
		t.Fatalf("bash result is not JSON: %v\n%s", err, tail(text, 2000))
	}
	return b
}

// bashStep is a step running one command through the bash tool.
func bashStep(cmd string) llmtest.Step {
	return llmtest.Calls(llmtest.Call("bash", fmt.Sprintf(`{"command":%q}`, cmd)))
}

func bashStepTimeout(cmd string, ms int) llmtest.Step {
	return llmtest.Calls(llmtest.Call("bash", fmt.Sprintf(`{"command":%q,"timeout_ms":%d}`, cmd, ms)))
}

// ---- provider faults -------------------------------------------------------

func TestFaultProviderRefusedConnection(t *testing.T) {
	t.Parallel()
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeConfig(t, dir, fastProvider(1, 2000))
			env := baseEnv(t)
			env["CODER_PROVIDER"] = protocol
			env["CODER_BASE_URL"] = fmt.Sprintf("http://127.0.0.1:%d/v1", closedPort(t))
			env["CODER_API_KEY"] = testKey
			env["CODER_MODEL"] = "fake-model"
			m := run{args: []string{"-p", "hi"}, env: env, dir: dir}.execMeasured(t, 30*time.Second)
			assertFailedReadably(t, m.result, "connection refused", "connect", "unreachable")
			if m.elapsed > 10*time.Second {
				t.Errorf("giving up on a refused connection took %v", m.elapsed)
			}
			// The user's input is committed even though no answer came.
			list := run{args: []string{"sessions"}, env: env, dir: dir}.exec(t)
			if !strings.Contains(list.stdout, "hi") {
				t.Errorf("the failed run's session is not listed:\n%s", list.stdout)
			}
		})
	}
}

// stormCase is a provider that fails every attempt the same way.
type stormCase struct {
	name  string
	fault llmtest.Fault
	words []string // one must appear in stderr
}

func TestFaultProviderStorms(t *testing.T) {
	t.Parallel()
	cases := []stormCase{
		{"429 retry-after 0", llmtest.Fault{Kind: llmtest.FaultStatus, Status: 429, RetryAfter: "0"}, []string{"429", "rate limit"}},
		{"429 retry-after 1", llmtest.Fault{Kind: llmtest.FaultStatus, Status: 429, RetryAfter: "1"}, []string{"429", "rate limit"}},
		{"500", llmtest.Fault{Kind: llmtest.FaultStatus, Status: 500}, []string{"500", "server error"}},
		{"503", llmtest.Fault{Kind: llmtest.FaultStatus, Status: 503}, []string{"503", "unavailable", "overloaded"}},
		{"529", llmtest.Fault{Kind: llmtest.FaultStatus, Status: 529}, []string{"529", "overloaded"}},
		{"truncated json", llmtest.Fault{Kind: llmtest.FaultMalformed, AfterChunks: 2}, []string{"json", "malformed", "stream", "invalid"}},
		{"cut", llmtest.Fault{Kind: llmtest.FaultCut, AfterChunks: 2}, []string{"stream", "cut", "connection"}},
		{"stream error", llmtest.Fault{Kind: llmtest.FaultStreamError, AfterChunks: 2}, []string{"error", "overloaded"}},
	}
	const retries = 1
	for _, protocol := range protocols {
		for _, c := range cases {
			t.Run(protocol+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{
					Text: "never delivered", Faults: []llmtest.Fault{c.fault}, AlwaysFail: true,
				}}})
				dir := t.TempDir()
				writeConfig(t, dir, fastProvider(retries, 5000))
				env := providerEnv(t, srv, protocol)
				m := run{args: []string{"-p", "hi"}, env: env, dir: dir}.execMeasured(t, 40*time.Second)
				assertFailedReadably(t, m.result, c.words...)
				if strings.Count(strings.TrimSpace(m.stderr), "\n") > 20 {
					t.Errorf("stderr is not a readable message (%d lines):\n%s", strings.Count(m.stderr, "\n"), m.stderr)
				}
				if n := len(srv.Requests()); n != retries+1 {
					t.Errorf("%d attempts, want %d (provider.max_retries=%d)", n, retries+1, retries)
				}
				if m.elapsed > 15*time.Second {
					t.Errorf("giving up took %v", m.elapsed)
				}
				// The input is committed and the session resumes.
				srvOK := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: "resumed fine", Check: validHistory}}})
				res := run{args: []string{"--continue", "-p", "again"}, env: providerEnv(t, srvOK, protocol), dir: dir}.exec(t)
				if res.code != 0 || !strings.Contains(res.stdout, "resumed fine") {
					t.Fatalf("continue after the storm: exit %d stderr %s", res.code, res.stderr)
				}
				// (Anthropic merges the two user turns into one message.)
				if msgs := srvOK.Requests()[0].Messages(); len(msgs) == 0 || !strings.HasPrefix(msgs[0].Text, "hi") {
					t.Errorf("the failed run's input was lost: %+v", msgs)
				}
				// stream-json reports the failure as its last event.
				srv2 := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{
					Text: "never delivered", Faults: []llmtest.Fault{c.fault}, AlwaysFail: true,
				}}})
				env2 := providerEnv(t, srv2, protocol)
				js := run{args: []string{"-p", "hi", "--output-format", "stream-json"}, env: env2, dir: dir}.execMeasured(t, 40*time.Second)
				assertNoPanic(t, js.result)
				evs := streamEvents(t, js.stdout)
				if js.code != 1 || len(evs) == 0 || evs[len(evs)-1]["is_error"] != true {
					t.Errorf("stream-json: exit %d, last event %v", js.code, evs[len(evs)-1:])
				}
			})
		}
	}
}

// A stall before the first byte is bounded by provider.timeout_ms; the
// retry then gets the answer.
func TestFaultProviderStallBeforeFirstByte(t *testing.T) {
	t.Parallel()
	for _, protocol := range protocols {
		t.Run(protocol+"/recovers", func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{
				Text: "answer after the stall", Faults: []llmtest.Fault{{Kind: llmtest.FaultStall}},
			}}})
			dir := t.TempDir()
			writeConfig(t, dir, fastProvider(2, 500))
			m := run{args: []string{"-p", "hi"}, env: providerEnv(t, srv, protocol), dir: dir}.execMeasured(t, 30*time.Second)
			assertNoPanic(t, m.result)
			if m.code != 0 || strings.TrimSpace(m.stdout) != "answer after the stall" {
				t.Fatalf("exit %d stdout %q stderr %q", m.code, m.stdout, m.stderr)
			}
			if m.elapsed > 8*time.Second {
				t.Errorf("recovering from a stall took %v with timeout_ms=500", m.elapsed)
			}
		})
		t.Run(protocol+"/gives up", func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{
				Text: "never", Faults: []llmtest.Fault{{Kind: llmtest.FaultStall}}, AlwaysFail: true,
			}}})
			dir := t.TempDir()
			writeConfig(t, dir, fastProvider(1, 500))
			m := run{args: []string{"-p", "hi"}, env: providerEnv(t, srv, protocol), dir: dir}.execMeasured(t, 30*time.Second)
			assertFailedReadably(t, m.result, "no response", "timed out", "timeout", "stalled")
			if m.elapsed > 8*time.Second {
				t.Errorf("giving up on a stalled server took %v with timeout_ms=500", m.elapsed)
			}
		})
	}
}

// A stream that stalls after some data needs an idle timeout. coder must
// give up (or retry) within a bounded, configurable time.
func TestFaultProviderStallMidStream(t *testing.T) {
	t.Parallel()
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{
				Text:   "a long answer that stalls half way through its stream",
				Faults: []llmtest.Fault{{Kind: llmtest.FaultStall, AfterChunks: 3}},
			}}})
			dir := t.TempDir()
			writeConfig(t, dir, fastProvider(2, 500))
			p := run{args: []string{"-p", "hi"}, env: providerEnv(t, srv, protocol), dir: dir}.start(t)
			done := make(chan error, 1)
			go func() { done <- p.cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(6 * time.Second):
				_ = p.cmd.Process.Kill()
				<-done
				t.Fatalf("a stream stalled mid-way was still waited on after 6s with provider.timeout_ms=500: " +
					"the idle timeout is not configurable (openai/anthropic Config.IdleTimeout defaults to 120s and build.go never sets it)")
			}
			res := result{code: p.cmd.ProcessState.ExitCode(), stdout: p.stdout.String(), stderr: p.stderr.String()}
			assertNoPanic(t, res)
			if res.code != 0 || strings.TrimSpace(res.stdout) != "a long answer that stalls half way through its stream" {
				t.Fatalf("exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
			}
		})
	}
}

// A 50 MB answer completes (or fails readably) in bounded memory.
func TestFaultProviderHugeResponse(t *testing.T) {
	t.Parallel()
	const size = 50 << 20
	text := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-+\n", size/64)
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: text, ChunkSize: 256 << 10}}})
	text = "" // the server keeps its own copy
	dir := t.TempDir()
	m := run{args: []string{"-p", "say a lot"}, env: providerEnv(t, srv, "openai"), dir: dir}.execMeasured(t, 60*time.Second)
	assertNoPanic(t, m.result)
	t.Logf("50 MB response: exit %d in %v, coder max RSS %.1f MB, stdout %d bytes", m.code, m.elapsed.Round(time.Millisecond), float64(m.maxRSS)/(1<<20), len(m.stdout))
	switch m.code {
	case 0:
		if len(m.stdout) < size {
			t.Errorf("exit 0 but only %d bytes printed", len(m.stdout))
		}
	case 1:
		if strings.TrimSpace(m.stderr) == "" {
			t.Errorf("failed without a message")
		}
	default:
		t.Errorf("exit %d\nstderr: %s", m.code, m.stderr)
	}
	if m.maxRSS > 300<<20 {
		t.Errorf("max RSS %.1f MB for a 50 MB response, want < 300 MB", float64(m.maxRSS)/(1<<20))
	}
}

// ---- tool faults -----------------------------------------------------------

func TestFaultToolOutputFlood(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"stdout": "yes | head -c 50000000",
		"stderr": "yes | head -c 50000000 >&2",
		"binary": "head -c 20000000 /dev/urandom",
	}
	for name, cmd := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{bashStep(cmd), llmtest.Text("flood handled")}})
			dir := t.TempDir()
			m := run{args: []string{"-p", "flood"}, env: providerEnv(t, srv, "openai"), dir: dir}.execMeasured(t, 60*time.Second)
			assertNoPanic(t, m.result)
			if m.code != 0 || strings.TrimSpace(m.stdout) != "flood handled" {
				t.Fatalf("exit %d stdout %q stderr %q", m.code, tail(m.stdout, 500), m.stderr)
			}
			rs := allToolResults(srv)
			if len(rs) != 1 {
				t.Fatalf("%d tool results", len(rs))
			}
			b := decodeBash(t, rs[0].Text)
			stream := b.Stdout
			if name == "stderr" {
				stream = b.Stderr
			}
			// The model gets the head and the tail, the cut marked between.
			if !b.Truncated || !strings.Contains(stream, " lines cut") {
				t.Errorf("flood not marked truncated: truncated=%v, stream ends %q", b.Truncated, tail(stream, 80))
			}
			if n := len(rs[0].Text); n > 512<<10 {
				t.Errorf("the model got %d bytes of flood", n)
			}
			if req := srv.Requests()[1]; len(req.Body) > 1<<20 {
				t.Errorf("the request after the flood is %d bytes", len(req.Body))
			}
			t.Logf("%s flood: coder max RSS %.1f MB, %v", name, float64(m.maxRSS)/(1<<20), m.elapsed.Round(time.Millisecond))
			if m.maxRSS > 100<<20 {
				t.Errorf("max RSS %.1f MB while flooding", float64(m.maxRSS)/(1<<20))
			}
		})
	}
}

// runTimedOutTool runs one bash call with a short timeout and returns its
// result, checking the run itself went well.
func runTimedOutTool(t *testing.T, cmd string, timeoutMS int) (bashResult, measured) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{bashStepTimeout(cmd, timeoutMS), llmtest.Text("moved on")}})
	dir := t.TempDir()
	m := run{args: []string{"-p", "run it"}, env: providerEnv(t, srv, "openai"), dir: dir}.execMeasured(t, 40*time.Second)
	assertNoPanic(t, m.result)
	if m.code != 0 || strings.TrimSpace(m.stdout) != "moved on" {
		t.Fatalf("exit %d stdout %q stderr %q", m.code, m.stdout, m.stderr)
	}
	rs := allToolResults(srv)
	if len(rs) != 1 {
		t.Fatalf("%d tool results", len(rs))
	}
	return decodeBash(t, rs[0].Text), m
}

func TestFaultToolIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	mark := marker()
	t.Cleanup(func() { killMarked(mark) })
	// 3 s: long enough for a loaded machine to start the sandbox and print
	// "started" before the timeout, which is what this test is about.
	b, m := runTimedOutTool(t, "trap '' TERM; echo started; sleep "+mark+"; echo never", 3000)
	if b.OK || !strings.Contains(b.Error, "timed out") || !strings.Contains(b.Stdout, "started") || strings.Contains(b.Stdout, "never") {
		t.Errorf("result %+v", b)
	}
	// SIGTERM is ignored, so the kill escalates after the grace period.
	if m.elapsed > 20*time.Second {
		t.Errorf("the run took %v", m.elapsed)
	}
	assertNoOrphans(t, mark)
}

func TestFaultToolForkedChildren(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"background and wait": "sleep %[1]s & sleep %[1]s & wait",
		"subshells":           "( sleep %[1]s ) & ( trap '' TERM; sleep %[1]s ) & wait",
		"nohup":               "nohup sleep %[1]s >/dev/null 2>&1 & sleep %[1]s",
		"nested bash":         "bash -c 'sleep %[1]s & sleep %[1]s'",
	}
	for name, tmpl := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mark := marker()
			t.Cleanup(func() { killMarked(mark) })
			b, _ := runTimedOutTool(t, fmt.Sprintf(tmpl, mark), 300)
			if b.OK || !strings.Contains(b.Error, "timed out") {
				t.Errorf("result %+v", b)
			}
			assertNoOrphans(t, mark)
		})
	}
}

// A command that finishes while a child it started in the background
// still runs: the call returns (it must not hang on the open pipe).
func TestFaultToolBackgroundChildReturns(t *testing.T) {
	t.Parallel()
	mark := marker()
	t.Cleanup(func() { killMarked(mark) })
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{bashStep("sleep " + mark + " & echo started"), llmtest.Text("returned")}})
	m := run{args: []string{"-p", "bg"}, env: providerEnv(t, srv, "openai"), dir: t.TempDir()}.execMeasured(t, 30*time.Second)
	assertNoPanic(t, m.result)
	if m.code != 0 || strings.TrimSpace(m.stdout) != "returned" || m.elapsed > 10*time.Second {
		t.Fatalf("exit %d stdout %q in %v, stderr %q", m.code, m.stdout, m.elapsed, m.stderr)
	}
	if b := decodeBash(t, allToolResults(srv)[0].Text); !strings.Contains(b.Stdout, "started") {
		t.Errorf("result %+v", b)
	}
	// Not asserted (a design choice): whether a child the command left in
	// the background outlives the call and coder itself.
	if left := markerPIDs("sleep", mark); len(left) > 0 {
		t.Logf("the background child outlived coder: pids %v", left)
	}
}

// A command that reads stdin gets /dev/null and returns at once: it must
// neither hang nor eat coder's own input. coder runs in line mode with an
// open pipe on stdin, so a tool that inherited it would block (cat) or
// swallow the next input line.
func TestFaultToolReadsStdin(t *testing.T) {
	t.Parallel()
	for name, cmd := range map[string]string{
		"cat":  "cat; echo cat-done",
		"read": "read -r line; echo \"read-done:$line:$?\"",
		"head": "head -n 1; echo head-done",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				bashStepTimeout(cmd, 20000),
				llmtest.Text("first turn over"),
				llmtest.Text("second turn over"),
			}})
			dir := t.TempDir()
			c := exec.Command(coderBin)
			c.Dir = dir
			for k, v := range providerEnv(t, srv, "openai") {
				c.Env = append(c.Env, k+"="+v)
			}
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			c.Stdin, c.Stdout, c.Stderr = pr, &out, &errb
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			pr.Close()
			t.Cleanup(func() { pw.Close(); _ = c.Process.Kill() })
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			fmt.Fprintln(pw, "run the command")
			// The tool ran and its result reached the model while stdin was
			// still open and silent.
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			_, werr := srv.WaitRequests(ctx, 2)
			cancel()
			if werr != nil {
				_ = c.Process.Kill()
				<-done
				t.Fatalf("the tool hung on stdin: %v\nstdout: %s\nstderr: %s", werr, out.String(), errb.String())
			}
			fmt.Fprintln(pw, "second input line")
			pw.Close()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				_ = c.Process.Kill()
				<-done
				t.Fatalf("coder did not exit at the end of its input: %s", errb.String())
			}
			res := result{code: c.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
			assertNoPanic(t, res)
			if res.code != 0 {
				t.Fatalf("exit %d stderr %s", res.code, res.stderr)
			}
			reqs := srv.Requests()
			b := decodeBash(t, reqs[1].ToolResults()[0].Text)
			if !b.OK || !strings.Contains(b.Stdout, "done") || strings.Contains(b.Stdout, "second input") || b.DurationMS > 5000 {
				t.Errorf("result %+v", b)
			}
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3: the second input line was lost", len(reqs))
			}
			msgs := reqs[2].Messages()
			if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(last.Text, "second input line") {
				t.Errorf("second turn's input %+v", last)
			}
		})
	}
}

// ---- storage faults --------------------------------------------------------

// firstTurn runs one successful headless turn in dir and returns its
// session id, so a later fault has committed data to lose.
func firstTurn(t *testing.T, dir string, env map[string]string) string {
	t.Helper()
	res := run{args: []string{"-p", "first task", "--output-format", "json"}, env: env, dir: dir}.exec(t)
	var out struct {
		SessionID string `json:"session_id"`
	}
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &out) != nil || out.SessionID == "" {
		t.Fatalf("first turn: exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
	}
	return out.SessionID
}

// assertFirstTurnKept resumes the latest session and checks the first
// turn is in the history sent to the model, and that history is valid.
func assertFirstTurnKept(t *testing.T, dir string, extra ...string) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: "resumed fine", Check: validHistory}}})
	res := run{args: []string{"--continue", "-p", "after the fault"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
	assertNoPanic(t, res)
	if res.code != 0 || strings.TrimSpace(res.stdout) != "resumed fine" {
		t.Fatalf("continue after the fault: exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
	}
	var texts []string
	for _, m := range srv.Requests()[0].Messages() {
		texts = append(texts, m.Role+":"+m.Text)
	}
	got := strings.Join(texts, "|")
	for _, want := range append([]string{"user:first task|assistant:first answer"}, extra...) {
		if !strings.Contains(got, want) {
			t.Fatalf("committed data lost: history %s lacks %s", got, want)
		}
	}
}

// mount runs mount(8) and undoes it at cleanup; it skips the test when
// this machine does not let us mount.
func mount(t *testing.T, target string, args ...string) {
	t.Helper()
	if out, err := exec.Command("mount", append(args, target)...).CombinedOutput(); err != nil {
		t.Skipf("cannot mount here (%v: %s): needs root in a namespace that allows mounts", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", target).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", target, err, out)
		}
	})
}

// readOnly bind-mounts dir read-only over itself (root ignores file modes,
// a read-only mount it cannot ignore). Returns the undo.
func readOnly(t *testing.T, dir string) func() {
	t.Helper()
	if out, err := exec.Command("mount", "--bind", dir, dir).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount here (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	if out, err := exec.Command("mount", "-o", "remount,ro,bind", dir).CombinedOutput(); err != nil {
		_ = exec.Command("umount", dir).Run()
		t.Skipf("cannot remount read-only here (%v: %s)", err, strings.TrimSpace(string(out)))
	}
	if err := os.WriteFile(filepath.Join(dir, "probe"), nil, 0o644); err == nil {
		t.Fatal("the read-only mount is writable")
	}
	undone := false
	undo := func() {
		if !undone {
			undone = true
			if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
				t.Errorf("umount %s: %v %s", dir, err, out)
			}
		}
	}
	t.Cleanup(undo)
	return undo
}

func TestFaultStorageReadOnly(t *testing.T) {
	t.Parallel()
	for _, which := range []string{".coder/sessions", ".coder"} {
		t.Run(which, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("first answer")}})
			firstTurn(t, dir, providerEnv(t, srv, "openai"))
			undo := readOnly(t, filepath.Join(dir, which))

			srv2 := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("must not be needed")}})
			res := run{args: []string{"--continue", "-p", "second task"}, env: providerEnv(t, srv2, "openai"), dir: dir}.exec(t)
			assertFailedReadably(t, res, "read-only", "unable to open database")
			if !strings.Contains(res.stderr, filepath.Join(dir, ".coder")) {
				t.Errorf("the message does not name the store: %q", res.stderr)
			}
			if n := len(srv2.Requests()); n != 0 {
				t.Errorf("the model was called %d times although the input could not be saved", n)
			}
			// Listing sessions only reads: it works, or fails naming the store.
			list := run{args: []string{"sessions"}, env: baseEnv(t), dir: dir}.exec(t)
			assertNoPanic(t, list)
			if list.code != 0 {
				t.Logf("coder sessions on a read-only store: exit %d stderr %q", list.code, list.stderr)
				if !strings.Contains(list.stderr, filepath.Join(dir, ".coder")) {
					t.Errorf("coder sessions failed without naming the store: %q", list.stderr)
				}
			} else if !strings.Contains(list.stdout, "first task") {
				t.Errorf("coder sessions on a read-only store: %q", list.stdout)
			}
			undo()
			assertFirstTurnKept(t, dir)
		})
	}
}

// The store opens while the provider is resolved and git runs; when the
// provider is missing too, the store's failure is still what is reported,
// as when the store opened before anything else.
func TestFaultStorageComesBeforeAMissingProvider(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("first answer")}})
	firstTurn(t, dir, providerEnv(t, srv, "openai"))
	noProvider := baseEnv(t)
	noProvider["OLLAMA_HOST"] = "127.0.0.1:1" // nothing listens there

	// Positive control: with the store intact, the missing provider is said.
	res := run{args: []string{"-p", "second task"}, env: noProvider, dir: dir}.exec(t)
	assertNoPanic(t, res)
	if res.code != 2 || !strings.Contains(res.stderr, "no model provider") {
		t.Fatalf("without a provider: exit %d stderr %q", res.code, res.stderr)
	}

	undo := readOnly(t, filepath.Join(dir, ".coder"))
	res = run{args: []string{"-p", "second task"}, env: noProvider, dir: dir}.exec(t)
	assertFailedReadably(t, res, "read-only", "unable to open database")
	if !strings.Contains(res.stderr, "session store") || strings.Contains(res.stderr, "no model provider") {
		t.Errorf("the store's failure is not the one reported: %q", res.stderr)
	}
	undo()
	assertFirstTurnKept(t, dir)
}

// lockDB holds an exclusive write lock on the session database until the
// returned func is called.
func lockDB(t *testing.T, dir string) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, ".coder", "coder.db"))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	// A write inside the lock, so the transaction really holds it.
	if _, err := conn.ExecContext(context.Background(), "CREATE TABLE IF NOT EXISTS e2e_lock_probe (x)"); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if released {
			return
		}
		released = true
		_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	}
	t.Cleanup(release)
	return release
}

func TestFaultStorageDatabaseLocked(t *testing.T) {
	t.Parallel()
	t.Run("shorter than the busy timeout: waits", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("first answer"), {Text: "second answer", Check: validHistory}}})
		env := providerEnv(t, srv, "openai")
		firstTurn(t, dir, env)
		release := lockDB(t, dir)
		const hold = 2 * time.Second
		timer := time.AfterFunc(hold, release)
		defer timer.Stop()
		m := run{args: []string{"--continue", "-p", "second task"}, env: env, dir: dir}.execMeasured(t, 30*time.Second)
		assertNoPanic(t, m.result)
		if m.code != 0 || strings.TrimSpace(m.stdout) != "second answer" {
			t.Fatalf("exit %d stdout %q stderr %q", m.code, m.stdout, m.stderr)
		}
		if m.elapsed < hold-200*time.Millisecond {
			t.Errorf("finished in %v while the database was locked for %v: did it write at all?", m.elapsed, hold)
		}
		assertFirstTurnKept(t, dir, "user:second task|assistant:second answer")
	})
	t.Run("longer than the busy timeout: fails readably", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("first answer"), llmtest.Text("second answer")}})
		env := providerEnv(t, srv, "openai")
		firstTurn(t, dir, env)
		release := lockDB(t, dir)
		m := run{args: []string{"--continue", "-p", "second task"}, env: env, dir: dir}.execMeasured(t, 40*time.Second)
		release()
		assertFailedReadably(t, m.result, "locked", "busy")
		t.Logf("gave up after %v", m.elapsed.Round(time.Millisecond))
		// One busy_timeout (10 s), not one per save attempt.
		if m.elapsed > 15*time.Second {
			t.Errorf("giving up on a locked database took %v, more than the 10 s busy_timeout", m.elapsed)
		}
		assertFirstTurnKept(t, dir)
	})
}

// smallFS mounts a size-limited tmpfs at dir/.coder, where the session
// store lives, and returns its path.
func smallFS(t *testing.T, dir, size string) string {
	t.Helper()
	store := filepath.Join(dir, ".coder")
	if err := os.MkdirAll(store, 0o755); err != nil {
		t.Fatal(err)
	}
	mount(t, store, "-t", "tmpfs", "-o", "size="+size, "tmpfs")
	return store
}

// fill writes to dir until the file system is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			return
		}
	}
}

func TestFaultStorageDiskFull(t *testing.T) {
	t.Parallel()
	t.Run("full before the turn", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		store := smallFS(t, dir, "2m")
		srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("first answer")}})
		firstTurn(t, dir, providerEnv(t, srv, "openai"))
		fill(t, store)
		srv2 := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("must not be needed")}})
		res := run{args: []string{"--continue", "-p", strings.Repeat("a long second task ", 500)}, env: providerEnv(t, srv2, "openai"), dir: dir}.exec(t)
		assertFailedReadably(t, res, "no space", "full", "disk")
		if n := len(srv2.Requests()); n != 0 {
			t.Errorf("the model was called %d times although the input could not be saved", n)
		}
		os.Remove(filepath.Join(store, "fill"))
		assertFirstTurnKept(t, dir)
	})
	t.Run("fills up during the turn", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		// The store lives outside .coder here (storage.dir), so that the
		// model's own command may fill its disk: .coder is a control
		// directory it cannot write.
		writeConfig(t, dir, `{"storage": {"dir": "state"}}`)
		store := filepath.Join(dir, "state")
		if err := os.MkdirAll(store, 0o755); err != nil {
			t.Fatal(err)
		}
		mount(t, store, "-t", "tmpfs", "-o", "size=2m", "tmpfs")
		srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
			llmtest.Text("first answer"),
			bashStep("echo ran >> count.txt; head -c 100M /dev/zero > state/fill; echo " + strings.Repeat("x", 2000)),
			llmtest.Text("must not be needed"),
		}})
		env := providerEnv(t, srv, "openai")
		firstTurn(t, dir, env)
		res := run{args: []string{"--continue", "-p", "fill the disk"}, env: env, dir: dir}.exec(t)
		assertFailedReadably(t, res, "no space", "full", "disk")
		if n := len(srv.Requests()); n != 2 {
			t.Errorf("%d model calls, want 2: the run must stop when the tool result cannot be saved", n)
		}
		os.Remove(filepath.Join(store, "fill"))
		assertFirstTurnKept(t, dir, "user:fill the disk")
		if got := readFile(t, dir, "count.txt"); got != "ran\n" {
			t.Errorf("count.txt = %q: the tool ran again after resume", got)
		}
	})
}

// A huge session (a 20 MB answer) resumes from the database and from its
// JSON snapshot; a truncated snapshot is a readable error.
func TestFaultStorageHugeSession(t *testing.T) {
	t.Parallel()
	const size = 20 << 20
	big := strings.Repeat("huge session line of text, 42 bytes long.\n", size/42)
	dir := t.TempDir()
	// The session is far above the context limit; compaction is another
	// test's subject.
	writeConfig(t, dir, `{"compaction": {"auto": false}, "runtime": {"max_response_bytes": 33554432}}`)
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: big, ChunkSize: 1 << 20}}})
	first := run{args: []string{"-p", "first task", "--output-format", "json"}, env: providerEnv(t, srv, "openai"), dir: dir}.execMeasured(t, 60*time.Second)
	var out struct {
		SessionID string `json:"session_id"`
	}
	if first.code != 0 || json.Unmarshal([]byte(first.stdout), &out) != nil {
		t.Fatalf("first: exit %d stderr %s", first.code, first.stderr)
	}
	snap := filepath.Join(dir, ".coder", "sessions", out.SessionID+".json")
	if fi, err := os.Stat(snap); err != nil || fi.Size() < size {
		t.Fatalf("snapshot %v %v", fi, err)
	}
	resume := func(t *testing.T, args ...string) measured {
		srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: "resumed", Check: func(r llmtest.Request) error {
			if err := validHistory(r); err != nil {
				return err
			}
			msgs := r.Messages()
			if len(msgs) < 3 || msgs[0].Text != "first task" || len(msgs[1].Text) != len(big) || msgs[len(msgs)-1].Text != "go on" {
				var roles []string
				for _, m := range msgs {
					roles = append(roles, fmt.Sprintf("%s(%d)", m.Role, len(m.Text)))
				}
				return fmt.Errorf("resumed history: %v", roles)
			}
			return nil
		}}}})
		m := run{args: append(args, "-p", "go on"), env: providerEnv(t, srv, "openai"), dir: dir}.execMeasured(t, 60*time.Second)
		assertNoPanic(t, m.result)
		if m.code != 0 || strings.TrimSpace(m.stdout) != "resumed" {
			t.Fatalf("exit %d stdout %q stderr %q", m.code, tail(m.stdout, 200), m.stderr)
		}
		t.Logf("resumed a %d MB session in %v, max RSS %.1f MB", size>>20, m.elapsed.Round(time.Millisecond), float64(m.maxRSS)/(1<<20))
		return m
	}
	t.Run("from the database", func(t *testing.T) { resume(t, "--continue") })
	t.Run("from the snapshot", func(t *testing.T) {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(filepath.Join(dir, ".coder", "coder.db"+suffix))
		}
		resume(t, "--resume", out.SessionID)
	})
	t.Run("truncated snapshot", func(t *testing.T) {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(filepath.Join(dir, ".coder", "coder.db"+suffix))
		}
		b, err := os.ReadFile(snap)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(snap, b[:len(b)/2], 0o644); err != nil {
			t.Fatal(err)
		}
		srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("must not be needed")}})
		res := run{args: []string{"--resume", out.SessionID, "-p", "go on"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
		assertNoPanic(t, res)
		if res.code == 0 || !strings.Contains(res.stderr, out.SessionID) || len(res.stderr) > 2000 {
			t.Fatalf("truncated snapshot: exit %d stderr %q", res.code, tail(res.stderr, 2000))
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("the model was called with a broken session")
		}
	})
}

// ---- process faults --------------------------------------------------------

// TestFaultProcessRandomKill SIGKILLs coder at seeded random moments of a
// scripted multi-step session (start-up, streaming, tool runs, saves),
// then resumes with --continue: the history must be valid, nothing may run
// twice and no tool process may be left behind.
func TestFaultProcessRandomKill(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CODER_E2E_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (rerun with CODER_E2E_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 9))
	mark := marker()
	t.Cleanup(func() { killMarked(mark) })
	dir := t.TempDir()
	const iterations = 6
	// resumedOnce: a session exists; before that, a kill at start-up leaves
	// nothing to continue, which is fine.
	resumedOnce := false
	for it := range iterations {
		var sc llmtest.Scenario
		for s := range 5 {
			tok := fmt.Sprintf("it%d-s%d", it, s)
			step := bashStep(fmt.Sprintf("echo %s >> count.txt; sleep 0.0%d", tok, 1+rng.IntN(9)))
			step.TokenDelay = time.Duration(rng.IntN(20)) * time.Millisecond
			if s == 2 { // a slow text-and-call step
				step.Text = strings.Repeat("thinking aloud ", 20)
				step.ChunkSize = 10
			}
			sc.Steps = append(sc.Steps, step)
		}
		// The last call never finishes by itself: the kill lands at the
		// latest while it runs.
		sc.Steps = append(sc.Steps, bashStep(fmt.Sprintf("echo it%d-last >> count.txt; sleep %s", it, mark)))
		srv, err := llmtest.Start(sc)
		if err != nil {
			t.Fatal(err)
		}
		p := run{args: []string{"-p", fmt.Sprintf("task %d", it)}, env: providerEnv(t, srv, "openai"), dir: dir}.start(t)
		// Where the kill lands: at start-up (opening the store), anywhere
		// in the run, or while the last call runs.
		var when string
		switch rng.IntN(3) {
		case 0:
			d := time.Duration(rng.IntN(60)) * time.Millisecond
			when = fmt.Sprintf("%v after start", d)
			time.Sleep(d)
		case 1:
			d := time.Duration(rng.IntN(1200)) * time.Millisecond
			when = fmt.Sprintf("%v after start", d)
			time.Sleep(d)
		default:
			d := time.Duration(rng.IntN(100)) * time.Millisecond
			when = fmt.Sprintf("%v into the last call", d)
			waitFor(t, "the last call", func() bool {
				b, _ := os.ReadFile(filepath.Join(dir, "count.txt"))
				return bytes.Contains(b, []byte(fmt.Sprintf("it%d-last", it)))
			})
			time.Sleep(d)
		}
		p.kill(t)
		srv.Close()
		// The killed run's sandbox ends with it, but a command already
		// running may finish its echo a moment after coder is gone: wait
		// for the tree to be gone before taking the count.
		waitFor(t, "the killed run's commands to end", func() bool {
			return len(markerPIDs("count.txt", fmt.Sprintf("echo it%d-", it))) == 0
		})
		countBefore, _ := os.ReadFile(filepath.Join(dir, "count.txt"))

		srv2 := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{Text: fmt.Sprintf("resumed %d", it), Check: validHistory}}})
		res := run{args: []string{"--continue", "-p", "go on"}, env: providerEnv(t, srv2, "openai"), dir: dir}.exec(t)
		assertNoPanic(t, res)
		countAfter, _ := os.ReadFile(filepath.Join(dir, "count.txt"))
		if res.code == 2 && strings.Contains(res.stderr, "no session to continue") && !resumedOnce && len(countAfter) == 0 {
			// Killed before the first session existed: nothing to resume.
			t.Logf("iteration %d: killed %s, before any session was saved", it, when)
			continue
		}
		if res.code != 0 || strings.TrimSpace(res.stdout) != fmt.Sprintf("resumed %d", it) {
			t.Fatalf("iteration %d (killed %s): continue: exit %d stdout %q stderr %q", it, when, res.code, res.stdout, res.stderr)
		}
		resumedOnce = true
		if !bytes.Equal(countBefore, countAfter) {
			t.Fatalf("iteration %d: --continue ran a tool again:\nbefore %q\nafter  %q", it, countBefore, countAfter)
		}
		// No call ran twice, ever.
		ran := map[string]bool{}
		for _, line := range strings.Fields(string(countAfter)) {
			if ran[line] {
				t.Fatalf("iteration %d: %s ran twice: %q", it, line, countAfter)
			}
			ran[line] = true
		}
		// The resumed history agrees with what ran: a call that ran is in
		// it (the assistant message is saved before its calls run), and a
		// call whose result says it completed really ran.
		msgs := srv2.Requests()[0].Messages()
		results := map[string]string{}
		inHistory := map[string]bool{}
		for _, m := range msgs {
			if m.Role == "tool" {
				results[m.ToolCallID] = m.Text
			}
		}
		for _, m := range msgs {
			for _, c := range m.ToolCalls {
				var a struct{ Command string }
				_ = json.Unmarshal([]byte(c.Args), &a)
				f := strings.Fields(a.Command)
				if len(f) < 2 {
					continue
				}
				tok := f[1]
				inHistory[tok] = true
				if r := results[c.ID]; strings.Contains(r, `"ok":true`) && !ran[tok] {
					t.Errorf("iteration %d: history says %s completed, but it never ran", it, tok)
				}
				if r := results[c.ID]; strings.Contains(r, "was not executed") && ran[tok] {
					t.Errorf("iteration %d: history says %s was not executed, but it ran", it, tok)
				}
			}
		}
		for tok := range ran {
			if strings.HasPrefix(tok, fmt.Sprintf("it%d-", it)) && !inHistory[tok] {
				t.Errorf("iteration %d: %s ran but its call is missing from the resumed history", it, tok)
			}
		}
		t.Logf("iteration %d: killed %s; %d calls ran so far", it, when, len(ran))
		assertNoOrphans(t, mark)
	}
}
