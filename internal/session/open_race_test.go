package session

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

const openerEnv = "CODER_SESSION_TEST_OPENER"

// TestHelperOpener is not a test: TestConcurrentFirstOpens runs the test
// binary again with it selected, as one of several processes opening one
// new database at once.
func TestHelperOpener(t *testing.T) {
	if os.Getenv(openerEnv) != "1" {
		t.Skip("helper process for TestConcurrentFirstOpens")
	}
	st, err := Open(StoreOptions{Dir: os.Getenv(helperDirEnv), Workspace: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := New(time.Now(), "m", "build")
	s.ID = os.Getenv(helperIDEnv)
	if err := st.Checkpoint(context.Background(), s); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentFirstOpens starts several processes that open one new
// database at once, as coder processes started together in a new
// workspace do (two terminals, a hook, an editor's ACP client). Switching
// a new database to WAL needs an exclusive lock, and SQLite runs no busy
// handler for it: however long busy_timeout, a loser failed at once with
// "database is locked" (in a throwaway run of 150 rounds of 6 processes,
// 17 of the 900 failed so before useWAL, none after; this test's 60
// processes caught it in most runs).
func TestConcurrentFirstOpens(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	const rounds, procs = 10, 6
	for r := range rounds {
		dir := tempDir(t)
		var wg sync.WaitGroup
		for i := range procs {
			wg.Go(func() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOpener$", "-test.count=1")
				cmd.Env = append(os.Environ(), openerEnv+"=1", helperDirEnv+"="+dir, helperIDEnv+"=s"+string(rune('a'+i)))
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				if err := cmd.Run(); err != nil {
					t.Errorf("round %d, process %d: %v\n%s", r, i, err, out.String())
				}
			})
		}
		wg.Wait()
		st := openStore(t, dir, "/w", nil)
		if sums, err := st.List(context.Background(), 0); err != nil || len(sums) != procs {
			t.Errorf("round %d: %d sessions stored, %v; want %d", r, len(sums), err, procs)
		}
		var mode string
		if err := st.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("round %d: journal_mode %q, %v; want wal", r, mode, err)
		}
	}
}
