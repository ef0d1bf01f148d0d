//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func bashResult(t *testing.T, res Result) BashResult {
	t.Helper()
	var out BashResult
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatalf("bash content is not JSON: %v\n%s", err, res.Content)
	}
	if out.OK != res.OK {
		t.Fatalf("Result.OK %v but content ok %v", res.OK, out.OK)
	}
	return out
}

func TestBashExitCodeAndStreams(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	res := call(t, builtin(t, ws, "bash"), map[string]any{"command": "echo out; echo err >&2; exit 3"})
	want := `{"ok":false,"exit_code":3,"stdout":"out\n","stderr":"err\n","truncated":false,"duration_ms":`
	if !strings.HasPrefix(res.Content, want) || strings.Contains(res.Content, `"error"`) {
		t.Fatalf("content %s\nwant prefix %s", res.Content, want)
	}
	if !strings.HasPrefix(res.Summary, "exit 3 · ") {
		t.Errorf("summary %q", res.Summary)
	}

	res = call(t, builtin(t, ws, "bash"), map[string]any{"command": "pwd; cat; printf 'caf\\xe9 <&>'"})
	out := bashResult(t, res)
	if !out.OK || out.ExitCode != 0 || out.Stdout != ws.Root+"\ncaf\uFFFD <&>" || out.Stderr != "" {
		t.Fatalf("got %+v", out)
	}
	if !strings.Contains(res.Content, "<&>") {
		t.Errorf("HTML characters escaped: %s", res.Content)
	}
}

func TestBashTruncatesEachStream(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	tool := bashTool{ws: ws, outputLimit: 100, launch: Direct{Dir: ws.Root}}
	res := call(t, tool, map[string]any{"command": "head -c 5000 /dev/zero | tr '\\0' a; echo small >&2"})
	out := bashResult(t, res)
	// One long line: cut at characters, 25 bytes of head and 75 of tail.
	want := strings.Repeat("a", 25) + "\n…[4900 bytes / 0 lines cut]…\n" + strings.Repeat("a", 75)
	if !out.Truncated || out.Stdout != want || out.Stderr != "small\n" || out.StdoutFile != "" {
		t.Fatalf("got %+v", out)
	}
	res = call(t, tool, map[string]any{"command": "seq 1 100"})
	out = bashResult(t, res)
	// Lines: the head ends and the tail starts at a line's end.
	if !out.Truncated || !strings.HasPrefix(out.Stdout, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n…[195 bytes / 65 lines cut]…\n77\n") ||
		!strings.HasSuffix(out.Stdout, "78\n79\n80\n81\n82\n83\n84\n85\n86\n87\n88\n89\n90\n91\n92\n93\n94\n95\n96\n97\n98\n99\n100\n") {
		t.Fatalf("stdout %q", out.Stdout)
	}
}

// startGroupProbe is a command whose background child records its PID and
// outlives the shell unless the whole process group is killed; the child
// also ignores SIGTERM, so only the SIGKILL that follows gets it.
func startGroupProbe(pidFile string) string {
	return "(trap '' TERM; echo $BASHPID > " + pidFile + "; while :; do sleep 0.05; done) & sleep 30"
}

func TestBashTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	pidFile := filepath.Join(ws.Root, "child.pid")
	start := time.Now()
	res := call(t, bashTool{ws: ws, maxTimeout: 30 * time.Second, launch: Direct{Dir: ws.Root}}, map[string]any{"command": startGroupProbe(pidFile), "timeout_ms": 500})
	elapsed := time.Since(start)
	out := bashResult(t, res)
	if out.OK || out.ExitCode != -1 || out.Error != "command timed out after 500ms" || res.Summary != out.Error {
		t.Fatalf("got %+v, summary %q", out, res.Summary)
	}
	if elapsed > 10*time.Second {
		t.Fatalf("took %v: the sleep was not killed", elapsed)
	}
	assertDead(t, pidFile)
}

func TestBashTimeoutCappedByConfig(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	tool := bashTool{ws: ws, maxTimeout: 300 * time.Millisecond, launch: Direct{Dir: ws.Root}}
	out := bashResult(t, call(t, tool, map[string]any{"command": "sleep 30", "timeout_ms": 60000}))
	if out.Error != "command timed out after 300ms" {
		t.Fatalf("got %+v", out)
	}
	out = bashResult(t, call(t, tool, map[string]any{"command": "sleep 30"}))
	if out.Error != "command timed out after 300ms" {
		t.Fatalf("default: got %+v", out)
	}
}

func TestBashCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	pidFile := filepath.Join(ws.Root, "child.pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		waitForFile(pidFile, 10*time.Second)
		cancel()
	}()
	start := time.Now()
	res := callCtx(t, ctx, builtin(t, ws, "bash"), map[string]any{"command": "echo started; " + startGroupProbe(pidFile)})
	out := bashResult(t, res)
	if out.OK || out.Error != "cancelled" || out.ExitCode != -1 || out.Stdout != "started\n" {
		t.Fatalf("got %+v", out)
	}
	if time.Since(start) > 15*time.Second {
		t.Fatal("cancel did not stop the command")
	}
	assertDead(t, pidFile)

	out = bashResult(t, callCtx(t, ctx, builtin(t, ws, "bash"), map[string]any{"command": "echo never"}))
	if out.Error != "cancelled" || out.Stdout != "" {
		t.Fatalf("already cancelled: %+v", out)
	}
}

// A child left running with & neither keeps the call waiting on its
// output pipe nor outlives the call.
func TestBashBackgroundChildDoesNotHangOrOutliveTheCall(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	pidFile := filepath.Join(ws.Root, "bg.pid")
	t.Cleanup(func() {
		if pid, err := readPID(pidFile); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	start := time.Now()
	// Positive control for the probe below: the child is seen alive while
	// the call runs.
	out := bashResult(t, call(t, builtin(t, ws, "bash"), map[string]any{"command": "(echo $BASHPID > bg.pid.tmp; mv bg.pid.tmp bg.pid; exec sleep 20) & " +
		"until [ -s bg.pid ]; do sleep 0.01; done; kill -0 $(cat bg.pid) && echo alive"}))
	if !out.OK || out.Stdout != "alive\n" {
		t.Fatalf("got %+v", out)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("waited for the background child's pipe")
	}
	assertDead(t, pidFile)
}

func TestBashEmptyCommand(t *testing.T) {
	t.Parallel()
	if msg := failure(t, call(t, builtin(t, newWS(t), "bash"), map[string]any{"command": "  "})); !strings.HasSuffix(msg, "empty command") {
		t.Fatalf("got %q", msg)
	}
}

func waitForFile(path string, limit time.Duration) {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return
		}
	}
}

func readPID(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// assertDead checks that the process whose PID is in pidFile is gone. A
// zombie counts as gone: it has been killed, and where PID 1 does not reap
// orphans (some containers) it stays a zombie.
func assertDead(t *testing.T, pidFile string) {
	t.Helper()
	pid, err := readPID(pidFile)
	if err != nil {
		t.Fatalf("child never wrote its PID: %v", err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !processAlive(pid) {
			return
		}
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("child %d survived the kill", pid)
}

func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) == 0 || (fields[0] != "Z" && fields[0] != "X")
}
