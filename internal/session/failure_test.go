package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// Tests run as root in CI containers, where permission bits do not stop
// writes; replacing a directory by a file (or the reverse) fails for anyone.

func TestCheckpointFailsWhenSnapshotDirIsUnwritable(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	st := openStore(t, dir, "/w", nil)
	s := fullSession()
	checkpoint(t, st, s)

	snaps := filepath.Join(dir, "sessions")
	if err := os.RemoveAll(snaps); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(snaps, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "more"})
	err := st.Checkpoint(context.Background(), s)
	if err == nil {
		t.Fatal("checkpoint succeeded with sessions/ replaced by a file")
	}
	if !strings.Contains(err.Error(), "write snapshot "+filepath.Join(snaps, s.ID+".json")) {
		t.Errorf("error does not say what failed where: %v", err)
	}

	// Open refuses too: it cannot create sessions/.
	if _, err := Open(StoreOptions{Dir: dir}); err == nil || !strings.Contains(err.Error(), snaps) {
		t.Errorf("Open = %v, want an error naming %s", err, snaps)
	}
}

func TestCheckpointFailsOnReadOnlyDir(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root ignores permission bits; see TestCheckpointFailsWhenSnapshotDirIsUnwritable")
	}
	dir := tempDir(t)
	st := openStore(t, dir, "/w", nil)
	snaps := filepath.Join(dir, "sessions")
	if err := os.Chmod(snaps, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(snaps, 0o755) })
	err := st.Checkpoint(context.Background(), fullSession())
	if err == nil || !strings.Contains(err.Error(), "write snapshot "+snaps) {
		t.Errorf("checkpoint into a read-only dir = %v", err)
	}
}

func TestOpenFailsWhenDatabaseIsADirectory(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	db := filepath.Join(dir, "coder.db")
	if err := os.MkdirAll(db, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := Open(StoreOptions{Dir: dir})
	if err == nil {
		st.Close()
		t.Fatal("Open succeeded with coder.db a directory")
	}
	if !strings.Contains(err.Error(), db) {
		t.Errorf("error does not name the database: %v", err)
	}
}

func TestCheckpointFailsWhenDatabaseIsGone(t *testing.T) {
	t.Parallel()
	st := openStore(t, tempDir(t), "/w", nil)
	s := fullSession()
	checkpoint(t, st, s)
	// Another process (or a bug) broke the schema: the row write must fail
	// and say so, and nothing is cached as persisted.
	if _, err := st.db.Exec(`DROP TABLE messages`); err != nil {
		t.Fatal(err)
	}
	s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "more"})
	err := st.Checkpoint(context.Background(), s)
	if err == nil || !strings.Contains(err.Error(), "save "+s.ID+" to database "+st.Path()) {
		t.Fatalf("checkpoint = %v", err)
	}
	if got := st.persisted[s.ID].count; got != len(s.Messages)-1 {
		t.Errorf("persisted count = %d after a failed write", got)
	}
}

func TestClosedStore(t *testing.T) {
	t.Parallel()
	st := openStore(t, tempDir(t), "/w", nil)
	st.Close()
	if err := st.Checkpoint(context.Background(), fullSession()); err == nil {
		t.Error("checkpoint on a closed store succeeded")
	}
	if _, err := st.List(context.Background(), 1); err == nil {
		t.Error("list on a closed store succeeded")
	}
}
