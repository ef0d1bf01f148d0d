package session

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

const (
	helperEnv     = "CODER_SESSION_TEST_HELPER"
	helperDirEnv  = "CODER_SESSION_TEST_DIR"
	helperIDEnv   = "CODER_SESSION_TEST_ID"
	helperWrites  = 300
	helperTimeout = 90 * time.Second // -race on 2 cores; normally a few seconds
)

// TestHelperWriter is not a test: TestTwoProcessesShareOneDatabase runs the
// test binary again with it selected, as a second writer process.
func TestHelperWriter(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("helper process for TestTwoProcessesShareOneDatabase")
	}
	st, err := Open(StoreOptions{Dir: os.Getenv(helperDirEnv), Workspace: "/shared"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := New(time.Now(), "m", "build")
	s.ID = os.Getenv(helperIDEnv)
	for i := range helperWrites {
		s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: helperContent(s.ID, i)})
		s.Updated = time.Now()
		if err := st.Checkpoint(context.Background(), s); err != nil {
			t.Fatalf("checkpoint %d: %v", i, err)
		}
	}
}

func helperContent(id string, i int) string { return fmt.Sprintf("%s message %d", id, i) }

func TestTwoProcessesShareOneDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	t.Parallel()
	dir := tempDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), helperTimeout)
	defer cancel()
	ids := []string{"proc-one", "proc-two"}
	cmds := make([]*exec.Cmd, len(ids))
	outs := make([]*bytes.Buffer, len(ids))
	for i, id := range ids {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), helperEnv+"=1", helperDirEnv+"="+dir, helperIDEnv+"="+id)
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer %s: %v\n%s", ids[i], err, outs[i].String())
		}
	}
	st := openStore(t, dir, "/shared", nil)
	for _, id := range ids {
		s, err := st.Load(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Messages) != helperWrites {
			t.Fatalf("%s has %d messages, want %d", id, len(s.Messages), helperWrites)
		}
		for i, m := range s.Messages {
			if m.Content != helperContent(id, i) {
				t.Fatalf("%s message %d = %q", id, i, m.Content)
			}
		}
	}
	if sums, err := st.List(context.Background(), 0); err != nil || len(sums) != 2 {
		t.Errorf("list = %+v, %v", sums, err)
	}
}
