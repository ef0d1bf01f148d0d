//go:build e2e

package e2e

import (
	"bufio"
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
// (dirwatch.WatchFrom(0)). Controls: the same look finds the instance
// this test opens in its own process, and finds the workspace held open by
// `coder sandbox`'s guard, so it looked at the right process while the
// guard was on.
func TestOneCommandProcessesHoldNoInotify(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	ifd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify here: %v", err)
	}
	defer syscall.Close(ifd)
	if !slices.Contains(fdLinks(t, os.Getpid()), "anon_inode:inotify") {
		t.Fatal("positive control: this test's own inotify instance was not seen")
	}

	w := newSandboxWorld(t)
	writeFile(t, w.ws, "sub/dir/f.txt", "x\n")
	// It waits for a file the test makes: an editor's terminal gives the
	// command no stdin.
	script := []string{"bash", "-c", "echo ready; until [ -e go ]; do sleep 0.01; done; echo done"}
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
			held := fdsWhileRunning(t, w, tc.args)
			if tc.holdsRoot && !slices.Contains(held, w.ws) {
				t.Fatalf("positive control: coder's guard does not hold the workspace %s open: %q", w.ws, held)
			}
			if slices.Contains(held, "anon_inode:inotify") {
				t.Fatalf("coder holds an inotify instance while its command runs: %q", held)
			}
		})
	}
}

// fdsWhileRunning starts coder with args, whose command prints "ready",
// waits for the file "go" in the workspace and prints "done", and returns
// what coder's descriptors name while the command waits.
func fdsWhileRunning(t *testing.T, w *sandboxWorld, args []string) []string {
	t.Helper()
	cmd := exec.Command(coderBin, args...)
	cmd.Dir = w.ws
	for k, v := range w.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case l := <-lines:
		if l != "ready" {
			t.Fatalf("first line %q, want ready", l)
		}
	case <-time.After(time.Minute):
		t.Fatal("the command did not start within a minute")
	}
	held := fdLinks(t, cmd.Process.Pid)
	writeFile(t, w.ws, "go", "")
	defer os.Remove(filepath.Join(w.ws, "go"))
	if l := <-lines; l != "done" {
		t.Fatalf("after the file: %q, want done", l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("coder %s: %v", args[0], err)
	}
	return held
}

// fdLinks is what each of pid's descriptors names.
func fdLinks(t *testing.T, pid int) []string {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil {
			links = append(links, l)
		}
	}
	return links
}

// TestHeadlessRunWatchesFromItsSecondCall: a headless run (`coder -p`)
// holds no inotify instance while its model's first bash call runs (that
// call's scans, before and after, keep no watch: dirwatch.WatchFrom(3)),
// so a run with one call exits without waiting for the kernel to destroy
// watches; during its second call it holds one, the positive control
// that a longer run still keeps the scans' directory cache by inotify.
func TestHeadlessRunWatchesFromItsSecondCall(t *testing.T) {
	ifd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		t.Skipf("no inotify here: %v", err)
	}
	syscall.Close(ifd)
	dir := planWorkspace(t)
	waitFor := func(n string) string {
		return `{"command":"touch ready` + n + `; until [ -e go` + n + ` ]; do sleep 0.01; done"}`
	}
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", waitFor("1"))),
		llmtest.Calls(llmtest.Call("bash", waitFor("2"))),
		llmtest.Text("Done."),
	}})
	cmd := exec.Command(coderBin, "-p", "wait twice")
	cmd.Dir = dir
	for k, v := range providerEnv(t, srv, "openai") {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	held := func(n string) []string {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			if _, err := os.Stat(filepath.Join(dir, "ready"+n)); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("bash call %s did not start within a minute:\n%s", n, out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		links := fdLinks(t, cmd.Process.Pid)
		writeFile(t, dir, "go"+n, "")
		return links
	}
	if first := held("1"); slices.Contains(first, "anon_inode:inotify") {
		t.Errorf("coder -p holds an inotify instance during its first call: %q", first)
	}
	if second := held("2"); !slices.Contains(second, "anon_inode:inotify") {
		t.Errorf("positive control: coder -p holds no inotify instance during its second call: %q", second)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("coder -p: %v\n%s", err, out.String())
	}
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
