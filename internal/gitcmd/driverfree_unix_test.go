//go:build unix

package gitcmd

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO planted as a configuration file would block an open for reading
// until a writer came; the check must answer (not driver-free) at once.
func TestDriverFreeDoesNotHangOnAFIFO(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := plainRepo(t)
	if err := syscall.Mkfifo(filepath.Join(dir, ".git", "config.worktree"), 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	done := make(chan bool, 1)
	go func() { done <- driverFree(dir) }()
	select {
	case free := <-done:
		if free {
			t.Fatal("a FIFO in place of config.worktree counted as driver-free")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("driverFree blocked on a FIFO")
	}
}
