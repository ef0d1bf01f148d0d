package helper

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestNoChildrenSeesLivingAndUnreapedOnes: endAll skips its walk of /proc
// only when this process has no child at all; a running child and one
// that exited but is not reaped yet (a zombie, whose children the
// subreaper may not have been given yet) both count.
func TestNoChildrenSeesLivingAndUnreapedOnes(t *testing.T) {
	if !noChildren() {
		t.Skip("the test process already has children")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if noChildren() {
		t.Error("a running child was not seen")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Exited, not reaped: waitid with WNOWAIT leaves it a zombie.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var info [128]byte
		const pAll, wExited, wNoWait = 0, 4, 0x1000000
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pAll, 0, uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		if e == 0 || time.Now().After(deadline) {
			break
		}
	}
	if noChildren() {
		t.Error("an unreaped child was not seen")
	}
	_ = cmd.Wait()
	if !noChildren() {
		t.Error("with its only child reaped, the process still seems to have one")
	}
}
