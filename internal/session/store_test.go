package session

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

func TestMigrationsIdempotent(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	for range 3 {
		st, err := Open(StoreOptions{Dir: dir, Workspace: "/w"})
		if err != nil {
			t.Fatal(err)
		}
		var n, max int
		if err := st.db.QueryRow(`SELECT count(*), max(version) FROM schema_migrations`).Scan(&n, &max); err != nil {
			t.Fatal(err)
		}
		ms, _ := migrations()
		if n != len(ms) || max != ms[len(ms)-1].version {
			t.Errorf("schema_migrations has %d rows up to %d; want %d", n, max, len(ms))
		}
		var mode string
		if err := st.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("journal_mode = %q, %v", mode, err)
		}
		var cache int
		if err := st.db.QueryRow(`PRAGMA cache_size`).Scan(&cache); err != nil || cache != pageCacheKiB {
			t.Errorf("cache_size = %d, %v; want %d", cache, err, pageCacheKiB)
		}
		st.Close()
	}
	for _, p := range []string{filepath.Join(dir, "coder.db"), filepath.Join(dir, "sessions")} {
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	st := openStore(t, dir, "/work/a", nil)
	s := fullSession()
	checkpoint(t, st, s)
	st.Close()

	// A fresh store, as after a restart: nothing cached.
	st = openStore(t, dir, "/work/a", nil)
	got, err := st.Load(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := *s
	want.Workspace = "/work/a"
	equalSessions(t, got, &want)
}

func TestIncrementalCheckpointAppendsOnly(t *testing.T) {
	t.Parallel()
	c := &clock{t: t0}
	st := openStore(t, tempDir(t), "/w", c)
	s := fullSession()
	checkpoint(t, st, s)
	before := messageRows(t, st, s.ID)

	c.t = t0.Add(time.Hour) // rows written now carry a later created_at
	s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "next"}, chat.Message{Role: chat.RoleAssistant, Content: "ok"})
	checkpoint(t, st, s)
	after := messageRows(t, st, s.ID)
	if len(after) != 7 {
		t.Fatalf("rows = %d, want 7", len(after))
	}
	for i, r := range before {
		if after[i] != r {
			t.Errorf("row %d changed: %+v -> %+v", i, r, after[i])
		}
	}
	if after[5].createdAt != c.t.UnixNano() {
		t.Errorf("new row created_at = %d", after[5].createdAt)
	}
}

type msgRow struct {
	rowid, createdAt int64
	content          string
}

func messageRows(t *testing.T, st *Store, id string) []msgRow {
	t.Helper()
	rows, err := st.db.Query(`SELECT rowid, created_at, content FROM messages WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []msgRow
	for rows.Next() {
		var r msgRow
		if err := rows.Scan(&r.rowid, &r.createdAt, &r.content); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestHistoryRewrites(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(s *Session)
	}{
		{"generation", func(s *Session) {
			s.Messages = []chat.Message{{Role: chat.RoleUser, Content: "summary"}, s.Messages[4], s.Messages[0]}
			s.Messages = append(s.Messages, chat.Message{Role: chat.RoleAssistant, Content: "after compaction"})
			s.Generation++
		}},
		{"fewer messages", func(s *Session) { s.Messages = s.Messages[:2] }},
		{"last edited in place", func(s *Session) { s.Messages[4].Content = "partial answer, completed" }},
		{"same length replaced", func(s *Session) {
			s.Messages = append([]chat.Message(nil), s.Messages...)
			s.Messages[0].Content = "changed"
			s.Generation++
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t, tempDir(t), "/w", nil)
			s := fullSession()
			s.Workspace = "/w"
			checkpoint(t, st, s)
			tc.change(s)
			checkpoint(t, st, s)
			if n := rowCount(t, st, "messages", s.ID); n != len(s.Messages) {
				t.Errorf("rows = %d, want %d", n, len(s.Messages))
			}
			st.persisted = map[string]persistState{} // force a read from SQLite
			got, err := st.Load(context.Background(), s.ID)
			if err != nil {
				t.Fatal(err)
			}
			equalSessions(t, got, s)
		})
	}
}

func TestSnapshotIsValidJSONOfTheSession(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	st := openStore(t, dir, "/w", nil)
	s := fullSession()
	s.Workspace = "/w"
	checkpoint(t, st, s)
	s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "second"})
	checkpoint(t, st, s)

	b, err := os.ReadFile(filepath.Join(dir, "sessions", s.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\n  \"title\": \"Fix the parser <&> 修复\"") {
		t.Errorf("snapshot is not indented, readable JSON:\n%.300s", b)
	}
	var got Session
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	equalSessions(t, &got, s)
	entries, _ := os.ReadDir(filepath.Join(dir, "sessions"))
	if len(entries) != 1 {
		t.Errorf("sessions dir holds %d entries (temp files left?)", len(entries))
	}
}

func TestLoadFallsBackToSnapshot(t *testing.T) {
	t.Parallel()
	st := openStore(t, tempDir(t), "/w", nil)
	s := fullSession()
	s.Workspace = "/w"
	checkpoint(t, st, s)
	if _, err := st.db.Exec(`DELETE FROM sessions WHERE id = ?`, s.ID); err != nil {
		t.Fatal(err)
	}
	got, err := st.Load(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	equalSessions(t, got, s)
	// The next checkpoint puts it back into SQLite, all rows.
	checkpoint(t, st, got)
	if n := rowCount(t, st, "messages", s.ID); n != len(s.Messages) {
		t.Errorf("rows after restore = %d, want %d", n, len(s.Messages))
	}
}

func TestRecordUsageIsIdempotent(t *testing.T) {
	t.Parallel()
	st := openStore(t, tempDir(t), "/w", nil)
	s := fullSession()
	checkpoint(t, st, s)
	ctx := context.Background()
	for _, in := range []int{10, 20} { // a retry of call 1 replaces it
		if err := st.RecordUsage(ctx, s.ID, UsageRecord{RunID: "r1", ModelCall: 1, Model: "m", Usage: chat.Usage{InputTokens: in}, At: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.RecordUsage(ctx, s.ID, UsageRecord{RunID: "r1", ModelCall: 2, Usage: chat.Usage{OutputTokens: 5}, At: t0}); err != nil {
		t.Fatal(err)
	}
	recs, err := st.UsageRecords(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Usage.InputTokens != 20 || recs[1].Usage.OutputTokens != 5 || !recs[0].At.Equal(t0) {
		t.Errorf("records = %+v", recs)
	}
}

// The snapshot file must be exactly what encoding the whole session writes,
// whether a save appended in place or rewrote the file: as messages are
// appended, edited and rewritten, when the head changes, and when someone
// else touched the file.
func TestSnapshotMatchesEncoder(t *testing.T) {
	t.Parallel()
	st := openStore(t, tempDir(t), "/w", nil)
	s := fullSession()
	check := func(step string) {
		t.Helper()
		if err := st.saveSnapshot(s); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(st.SnapshotPath(s.ID))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := encodeIndented(st.view(s), "")
		if string(got) != string(want) {
			t.Fatalf("%s: snapshot differs\n got: %s\nwant: %s", step, got, want)
		}
		var back Session
		if err := json.Unmarshal(got, &back); err != nil || len(back.Messages) != len(s.Messages) || back.Title != s.Title {
			t.Fatalf("%s: the snapshot does not load back: %v", step, err)
		}
	}
	check("first")
	inode := func() uint64 { return inodeOf(t, st.SnapshotPath(s.ID)) }
	first := inode()
	for i := range 3 {
		s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: `"messages": []` + "\n  \"messages\": []"})
		s.Usage.OutputTokens += 1000 * (i + 1) // the tail grows
		check(fmt.Sprintf("append %d", i))
	}
	if inode() != first {
		t.Error("an append rewrote the whole file instead of its end")
	}
	s.Usage = chat.Usage{} // the tail shrinks
	s.Messages = append(s.Messages, chat.Message{Role: chat.RoleAssistant, Content: "short"})
	check("append, shorter tail")
	s.Messages[len(s.Messages)-1].Content = "edited"
	check("edit last")
	s.Title = "a new title"
	s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "after the title"})
	check("head changed")
	if err := os.WriteFile(st.SnapshotPath(s.ID), []byte("someone else's"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "after a foreign write"})
	check("foreign write")
	s.Messages = s.Messages[:1]
	check("shrink")
	s.Messages[0].Content = "compacted"
	s.Generation++
	check("generation")
	other := fullSession()
	other.ID = "other"
	if err := st.saveSnapshot(other); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(st.SnapshotPath(other.ID)); string(got) != string(must(encodeIndented(st.view(other), ""))) {
		t.Fatal("another session reused the cache")
	}
	s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "back to the first"})
	check("back to the first session")
	s.Messages = nil
	check("empty")
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// The DSN is a URI: characters that mean something in one must be escaped.
func TestOpenPathWithURICharacters(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "my proj?x=1#frag%20", ".coder")
	st := openStore(t, dir, "/w", nil)
	checkpoint(t, st, fullSession())
	if _, err := os.Stat(filepath.Join(dir, "coder.db")); err != nil {
		t.Fatal(err)
	}
}

// The store keeps its state out of git status (a real git, when there is one).
func TestStoreDirIsGitIgnored(t *testing.T) {
	t.Parallel()
	ws := tempDir(t)
	st := openStore(t, filepath.Join(ws, ".coder"), ws, nil)
	if err := st.Checkpoint(context.Background(), fullSession()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".coder", "config.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	out, err := exec.Command("git", "-C", ws, "status", "--porcelain", "--untracked-files=all").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(string(out))
	if got != "?? .coder/.gitignore\n?? .coder/config.json" {
		t.Fatalf("git status shows coder's state:\n%s", got)
	}
}
