//go:build e2e

package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/terminal"
)

// TestOneCommandProcessesHoldNoInotify: `coder sandbox` and what an
// editor's terminal runs for a bash call each run one command, scanning
// the workspace once or twice, and hold no inotify instance while it runs,
// so their exit does not wait for the kernel to destroy watches
// (sandbox.WithoutDirWatches). Controls: the same look finds the instance
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
