package supervise

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary plays three parts: the test, a "parent" that starts a
// supervised command and then is killed, and the supervisor itself.
func TestMain(m *testing.M) {
	MaybeRun()
	if os.Getenv("SUPERVISE_TEST_PARENT") == "1" {
		cmd := Wrap(os.Args[0], exec.Command("/bin/sh", "-c", "sleep 30 & echo $!; wait"))
		cmd.SysProcAttr = SysProcAttr()
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for { // until killed (a bare select{} would trip the deadlock detector)
			time.Sleep(time.Hour)
		}
	}
	os.Exit(m.Run())
}

func TestCommandDiesWithItsParent(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), "SUPERVISE_TEST_PARENT=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the child's pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	if !alive(pid) {
		t.Fatal("the supervised sleep is not running")
	}
	_ = parent.Process.Signal(syscall.SIGKILL) // coder dies without cleaning up
	_ = parent.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the command outlived its parent")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive: the process exists and is not a zombie (nothing reaps orphans here).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] != "Z"
}

func TestExitCodeIsPassedOn(t *testing.T) {
	cmd := Wrap(os.Args[0], exec.Command("/bin/sh", "-c", "exit 7"))
	cmd.SysProcAttr = SysProcAttr()
	err := cmd.Run()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 7 {
		t.Fatalf("exit: %v", err)
	}
}
