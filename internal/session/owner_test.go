package session

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

const ownerEnv = "CODER_SESSION_TEST_OWNER"

// TestHelperOwner is not a test: TestASessionHasOneOwnerProcess runs the
// test binary again with it selected, as the process that owns a session.
func TestHelperOwner(t *testing.T) {
	if os.Getenv(ownerEnv) != "1" {
		t.Skip("helper process for TestASessionHasOneOwnerProcess")
	}
	st, err := Open(StoreOptions{Dir: os.Getenv(helperDirEnv), Workspace: "/shared"})
	if err != nil {
		t.Fatal(err)
	}
	s := New(time.Now(), "m", "build")
	s.ID = os.Getenv(helperIDEnv)
	s.Messages = []chat.Message{{Role: chat.RoleUser, Content: "mine"}}
	if err := st.Checkpoint(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("owned\n")
	select {}
}

func TestASessionHasOneOwnerProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	t.Parallel()
	dir := tempDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOwner$", "-test.count=1")
	cmd.Env = append(os.Environ(), ownerEnv+"=1", helperDirEnv+"="+dir, helperIDEnv+"=live")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "owned\n" {
		t.Fatalf("owner: %q", line)
	}
	st := openStore(t, dir, "/shared", nil)
	ctx := context.Background()
	s, err := st.Load(ctx, "live")
	if err != nil {
		t.Fatal(err)
	}
	s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "theirs"})
	var inUse *InUseError
	for name, write := range map[string]func() error{
		"claim":      func() error { return st.Claim("live") },
		"checkpoint": func() error { return st.Checkpoint(ctx, s) },
		"mark":       func() error { return st.MarkStarted(ctx, "live", "c1") },
		"undo":       func() error { return st.DropUndo(ctx, "live", 1) },
	} {
		if err := write(); !errors.As(err, &inUse) || inUse.PID != cmd.Process.Pid {
			t.Fatalf("%s of a live session: %v", name, err)
		}
	}
	// Positive control: another session is this process's to write.
	other := New(time.Now(), "m", "build")
	other.Messages = []chat.Message{{Role: chat.RoleUser, Content: "other"}}
	if err := st.Checkpoint(ctx, other); err != nil {
		t.Fatal(err)
	}
	// The owner dies (SIGKILL): the session is free.
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if err := st.Checkpoint(ctx, s); err != nil {
		t.Fatalf("after the owner died: %v", err)
	}
	back, err := st.Load(ctx, "live")
	if err != nil || len(back.Messages) != 2 {
		t.Fatalf("%v %v", back, err)
	}
}

func TestReleaseLetsAnotherStoreOwnIt(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	a, b := openStore(t, dir, "/w", nil), openStore(t, dir, "/w", nil)
	if err := a.Claim("s1"); err != nil {
		t.Fatal(err)
	}
	if err := a.Claim("s1"); err != nil {
		t.Fatalf("claiming twice in one store: %v", err)
	}
	if err := b.Claim("s1"); !errors.Is(err, ErrInUse) {
		t.Fatalf("a second owner: %v", err)
	}
	a.Release("s1")
	if err := b.Claim("s1"); err != nil {
		t.Fatalf("after Release: %v", err)
	}
}
