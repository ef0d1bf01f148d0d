package lockfile

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A child process holds the lock until it is killed; TestMain runs it.
func TestMain(m *testing.M) {
	if p := os.Getenv("LOCKFILE_TEST_HOLD"); p != "" {
		if _, err := TryLock(p); err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		select {}
	}
	os.Exit(m.Run())
}

func holdInChild(t *testing.T, path string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LOCKFILE_TEST_HOLD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("child: %q", line)
	}
	return cmd
}

func TestAnotherProcessHoldsUntilItDies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locks", "s.lock")
	child := holdInChild(t, path)
	_, err := TryLock(path)
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) || held.PID != child.Process.Pid {
		t.Fatalf("want held by %d, got %v", child.Process.Pid, err)
	}
	if h, err := Held(path); !h || err != nil {
		t.Fatalf("Held = %v %v", h, err)
	}
	// SIGKILL: the kernel releases the lock; the stale file is taken over.
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	l, err := TryLock(path)
	if err != nil {
		t.Fatalf("after the owner died: %v", err)
	}
	l.Unlock()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("Unlock left the file: %v", err)
	}
	if h, err := Held(path); h || err != nil {
		t.Fatalf("Held after unlock = %v %v", h, err)
	}
}

func TestOneOwnerWithinAProcessToo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(path); !errors.Is(err, ErrHeld) {
		t.Fatalf("a second TryLock in the same process: %v", err)
	}
	l.Unlock()
	l2, err := TryLock(path)
	if err != nil {
		t.Fatalf("after Unlock: %v", err)
	}
	l2.Unlock()
}
