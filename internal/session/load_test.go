package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

func TestListAndLatestPerWorkspace(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	db := filepath.Join(root, "shared.db")
	open := func(ws string) *Store {
		st, err := Open(StoreOptions{Dir: filepath.Join(root, ws), SQLitePath: db, Workspace: "/" + ws})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b := open("a"), open("b")
	ctx := context.Background()
	if _, err := a.Latest(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Latest on empty = %v, want ErrNotFound", err)
	}
	var ids []string
	for i, title := range []string{"old", "newest", "middle"} {
		s := New(t0, "m", "plan")
		s.ID = "a-" + title
		s.Title = title
		s.Updated = t0.Add([]time.Duration{1, 3, 2}[i] * time.Hour)
		s.Messages = make([]chat.Message, i+1)
		for j := range s.Messages {
			s.Messages[j] = chat.Message{Role: chat.RoleUser, Content: "x"}
		}
		checkpoint(t, a, s)
		ids = append(ids, s.ID)
	}
	other := New(t0.Add(10*time.Hour), "m", "build")
	other.ID = "b-only"
	checkpoint(t, b, other)

	sums, err := a.List(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 3 || sums[0].ID != "a-newest" || sums[1].ID != "a-middle" || sums[2].ID != "a-old" {
		t.Fatalf("list a = %+v", sums)
	}
	if s := sums[0]; s.Messages != 2 || s.Title != "newest" || s.Mode != "plan" || s.Model != "m" ||
		!s.Updated.Equal(t0.Add(3*time.Hour)) || !s.Created.Equal(t0) {
		t.Errorf("summary = %+v", s)
	}
	if sums, _ := a.List(ctx, 1); len(sums) != 1 {
		t.Errorf("limit 1 gave %d", len(sums))
	}
	if sums, _ := b.List(ctx, 10); len(sums) != 1 || sums[0].ID != "b-only" {
		t.Errorf("list b = %+v", sums)
	}
	if s, err := a.Latest(ctx); err != nil || s.ID != "a-newest" || len(s.Messages) != 2 {
		t.Errorf("latest a = %v, %v", s, err)
	}
	if s, err := b.Latest(ctx); err != nil || s.ID != "b-only" {
		t.Errorf("latest b = %v, %v", s, err)
	}
}

func TestUnknownID(t *testing.T) {
	t.Parallel()
	st := openStore(t, tempDir(t), "/w", nil)
	_, err := st.Load(context.Background(), "20261122-080412-zzzzzz")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	want := `no session "20261122-080412-zzzzzz"; run "coder sessions" or /sessions to see ids`
	if got := err.Error(); len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("error text = %q, want prefix %q", got, want)
	}
}

func TestBadIDsRejected(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "ws", ".coder")
	st := openStore(t, dir, "/w", nil)
	// A file the traversal would reach.
	secret := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"id":"../secret"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"", "../secret", "..", "a/b", `a\b`, "/etc/passwd", "-rf", "a b", "a\x00b", "ü"} {
		if _, err := st.Load(context.Background(), id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Load(%q) = %v, want an invalid-id error", id, err)
		}
		s := New(t0, "m", "build")
		s.ID = id
		if err := st.Checkpoint(context.Background(), s); err == nil {
			t.Errorf("Checkpoint with id %q succeeded", id)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sessions"))
	if len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

func TestValidID(t *testing.T) {
	t.Parallel()
	if id := NewID(t0); !ValidID(id) {
		t.Errorf("NewID gave invalid %q", id)
	}
}
