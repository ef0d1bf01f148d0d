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
)

// TestSandboxCommandHoldsNoInotify: `coder sandbox` scans the workspace
// before and after its one command, and holds no inotify instance while
// the command runs, so its exit does not wait for the kernel to destroy
// watches (sandbox.WithoutDirWatches). Controls: the same look finds the
// instance this test opens in its own process, and finds the workspace
// held open by coder's guard, so it looked at the right process while the
// guard was on.
func TestSandboxCommandHoldsNoInotify(t *testing.T) {
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
	cmd := exec.Command(coderBin, "sandbox", "--", "bash", "-c", "echo ready; read x; echo done")
	cmd.Dir = w.ws
	for k, v := range w.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
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
	if !slices.Contains(held, w.ws) {
		t.Fatalf("positive control: coder's guard does not hold the workspace %s open: %q", w.ws, held)
	}
	if slices.Contains(held, "anon_inode:inotify") {
		t.Fatalf("coder sandbox holds an inotify instance while its command runs: %q", held)
	}
	if _, err := stdin.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	if l := <-lines; l != "done" {
		t.Fatalf("after the input: %q, want done", l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("coder sandbox: %v", err)
	}
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
