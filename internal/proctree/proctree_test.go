//go:build unix

package proctree

import (
	"bufio"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startTree starts a shell that leaves a background sleep behind and
// prints its pid.
func startTree(t *testing.T, script string) (*Tree, *exec.Cmd, int) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	tree, err := Start(cmd, false)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return tree, cmd, pid
}

func running(pid int) bool {
	// A zombie still answers kill 0; it is gone once ps cannot see it run.
	out, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(pid)).Output()
	return err == nil && len(out) > 0 && !strings.HasPrefix(strings.TrimSpace(string(out)), "Z")
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for running(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill ends what the root started, not only the root; the root's own
// process ends as well.
func TestKillEndsTheWholeTree(t *testing.T) {
	tree, cmd, child := startTree(t, "sleep 300 & echo $!; wait")
	if !running(child) || !tree.Alive() { // positive control
		t.Fatal("the background sleep is not running before Kill")
	}
	tree.Kill()
	_ = cmd.Wait()
	waitGone(t, child)
	deadline := time.Now().Add(10 * time.Second)
	for tree.Alive() {
		if time.Now().After(deadline) {
			t.Fatal("the tree is still alive after Kill")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A tree outlives its root while a process of it runs (a background
// task), and Terminate reaches that process after the root is gone.
func TestTreeOutlivesItsRootUntilTerminated(t *testing.T) {
	tree, cmd, child := startTree(t, "sleep 300 & echo $!")
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if !tree.Alive() || !running(child) {
		t.Fatal("the tree ended with its root")
	}
	tree.Terminate()
	waitGone(t, child)
}
