//go:build e2e

package e2e

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/terminal"
)

// TestOneCommandProcessesHoldNoInotify: `coder sandbox` and what an
// editor's terminal runs for a bash call each run one command, scanning
// the workspace once or twice, and hold no inotify instance while it runs,
// so their exit does not wait for the kernel to destroy watches
// (dirwatch.Disable). Controls: the same look finds the instance
// this test opens in its own process, and finds the workspace held open by
// `coder sandbox`'s guard, so it looked at the right process while the
// guard was on.
func TestOneCommandProcessesHoldNoInotify(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	needInotify(t)
	if !slices.Contains(slices.Collect(maps.Values(fdLinks(t, os.Getpid()))), "anon_inode:inotify") {
		t.Fatal("positive control: this test's own inotify instance was not seen")
	}

	w := newSandboxWorld(t)
	writeFile(t, w.ws, "sub/dir/f.txt", "x\n")
	script := []string{"bash", "-c", waitScript}
	_, termArgs, _, err := terminal.Command(sandbox.Profile{Workspace: w.ws}, script)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		args      []string
		holdsRoot bool
	}{
		{"coder sandbox", append([]string{"sandbox", "--"}, script...), true},
		{"editor's terminal", termArgs, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var held []string
			whilePaused(t, w.ws, w.env, tc.args, "", func(pid int) { held = slices.Collect(maps.Values(fdLinks(t, pid))) })
			if tc.holdsRoot && !slices.Contains(held, w.ws) {
				t.Fatalf("positive control: coder's guard does not hold the workspace %s open: %q", w.ws, held)
			}
			if slices.Contains(held, "anon_inode:inotify") {
				t.Fatalf("coder holds an inotify instance while its command runs: %q", held)
			}
		})
	}
}

// TestRunsReleaseTheirWatchesBeforeTheyEnd: a headless run (`coder -p`)
// and a REPL session (here in line mode, its input piped) keep the scans'
// directory cache by inotify while the model calls bash (the positive
// control: coder's inotify instances hold watches during the call, as
// /proc/PID/fdinfo lists them), and remove every watch once no turn can
// follow, before they save and end (what their SessionEnd hook, run then,
// finds in the same listing), so that their exit does not wait for the
// kernel to destroy them (dirwatch.ReleaseAll).
func TestRunsReleaseTheirWatchesBeforeTheyEnd(t *testing.T) {
	needInotify(t)
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"coder -p", []string{"-p", "wait"}, ""},
		{"line REPL", nil, "wait\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			during, atEnd := watchesDuringAndAtEnd(t, tc.args, tc.stdin)
			if sum(during) == 0 {
				t.Fatalf("positive control: coder held no watch during its bash call: %v", during)
			}
			if len(atEnd) == 0 || sum(atEnd) != 0 {
				t.Fatalf("watches per inotify instance at SessionEnd: %v (during the call: %v), want every instance there and empty", atEnd, during)
			}
		})
	}
}

// watchesDuringAndAtEnd runs coder with args and stdin against a model
// that calls bash once (waitScript) and returns the watches each of
// coder's inotify instances holds during the call and when its SessionEnd
// hook runs.
func watchesDuringAndAtEnd(t *testing.T, args []string, stdin string) (during, atEnd []int) {
	t.Helper()
	dir := planWorkspace(t)
	call, _ := json.Marshal(map[string]string{"command": waitScript})
	env := providerEnv(t, llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", string(call))),
		llmtest.Text("Done."),
	}}), "openai")
	state := t.TempDir()
	pidFile, out := filepath.Join(state, "pid"), filepath.Join(state, "watches")
	hook := filepath.Join(state, "count.sh")
	writeFile(t, state, "count.sh", "#!/bin/sh\npid=$(cat "+strconv.Quote(pidFile)+")\n"+
		"for f in /proc/$pid/fd/*; do\n"+
		"  [ \"$(readlink \"$f\")\" = anon_inode:inotify ] && grep -c '^inotify wd:' /proc/$pid/fdinfo/${f##*/}\n"+
		"done > "+strconv.Quote(out)+"\nexit 0\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(env["XDG_CONFIG_HOME"], "coder"), "config.json",
		`{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": `+strconv.Quote(hook)+`}]}]}}`)
	log := whilePaused(t, dir, env, args, stdin, func(pid int) {
		writeFile(t, state, "pid", strconv.Itoa(pid))
		during = watchCounts(t, pid)
	})
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the SessionEnd hook did not run: %v\n%s", err, log)
	}
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("hook output %q", b)
		}
		atEnd = append(atEnd, n)
	}
	return during, atEnd
}

// waitScript is a command that says it has started (the file "ready" in
// its directory) and waits for the file "go" there, which the test makes:
// an editor's terminal gives a command no stdin.
const waitScript = "touch ready; until [ -e go ]; do sleep 0.01; done"

// whilePaused runs coder with args, env and stdin in dir, where a command
// of it runs waitScript; it calls during with coder's PID while that
// command waits, then lets it go, waits for coder to exit 0 and returns
// what coder printed.
func whilePaused(t *testing.T, dir string, env map[string]string, args []string, stdin string, during func(pid int)) string {
	t.Helper()
	cmd := exec.Command(coderBin, args...)
	cmd.Dir = dir
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdin = strings.NewReader(stdin)
	log := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	defer os.Remove(filepath.Join(dir, "ready"))
	defer os.Remove(filepath.Join(dir, "go"))
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command did not start within a minute:\n%s", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	during(cmd.Process.Pid)
	writeFile(t, dir, "go", "")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("coder %v: %v\n%s", args, err, log.String())
	}
	return log.String()
}

// needInotify skips the test where inotify cannot be used; the instance
// it opens stays open for the test.
func needInotify(t *testing.T) {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify here: %v", err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
}

// fdLinks is what each of pid's descriptors names, by descriptor.
func fdLinks(t *testing.T, pid int) map[string]string {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil {
			links[e.Name()] = l
		}
	}
	return links
}

// watchCounts is how many watches each inotify instance of pid holds.
func watchCounts(t *testing.T, pid int) []int {
	t.Helper()
	var counts []int
	for fd, l := range fdLinks(t, pid) {
		if l != "anon_inode:inotify" {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "fdinfo", fd))
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, strings.Count(string(b), "\ninotify wd:"))
	}
	return counts
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// lockedBuffer is a buffer a running command writes while a test may read
// it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
