package session

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

// BenchmarkOpen opens an existing, current database: the cost every run pays.
func BenchmarkOpen(b *testing.B) {
	dir := tempDir(b)
	st, err := Open(StoreOptions{Dir: dir, Workspace: "/w"})
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	for b.Loop() {
		st, err := Open(StoreOptions{Dir: dir, Workspace: "/w"})
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}

func BenchmarkLoad5000(b *testing.B) {
	st := openStore(b, tempDir(b), "/w", nil)
	s := bigSession(5000)
	checkpoint(b, st, s)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		got, err := st.Load(ctx, s.ID)
		if err != nil || len(got.Messages) != 5000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckpointAppend adds one message to a 5,000-message session:
// one row inserted plus the whole JSON snapshot rewritten.
func BenchmarkCheckpointAppend(b *testing.B) {
	st := openStore(b, tempDir(b), "/w", nil)
	s := bigSession(5000)
	checkpoint(b, st, s)
	b.ReportAllocs()
	for b.Loop() {
		s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "one more thing"})
		checkpoint(b, st, s)
	}
}

// The two halves of BenchmarkCheckpointAppend, to show which dominates.
func BenchmarkCheckpointAppendRowsOnly(b *testing.B) {
	st := openStore(b, tempDir(b), "/w", nil)
	s := bigSession(5000)
	checkpoint(b, st, s)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "one more thing"})
		next, err := st.writeRows(ctx, s, st.persisted[s.ID], true)
		if err != nil {
			b.Fatal(err)
		}
		st.persisted[s.ID] = next
	}
}

// BenchmarkSnapshot5000Cold encodes and writes a 5,000-message snapshot with
// nothing cached: the first checkpoint after a resume or a compaction.
func BenchmarkSnapshot5000Cold(b *testing.B) {
	st := openStore(b, tempDir(b), "/w", nil)
	s := bigSession(5000)
	b.ReportAllocs()
	for b.Loop() {
		st.snap = nil
		if err := st.saveSnapshot(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkList1000(b *testing.B) {
	st := openStore(b, tempDir(b), "/w", nil)
	ctx := context.Background()
	for i := range 1000 {
		s := New(t0.Add(time.Duration(i)*time.Minute), "m", "build")
		s.ID = fmt.Sprintf("s%04d", i)
		s.Title = fmt.Sprintf("session number %d", i)
		s.Messages = []chat.Message{{Role: chat.RoleUser, Content: "hi"}, {Role: chat.RoleAssistant, Content: "hello"}}
		// Rows only: a thousand snapshot fsyncs would only slow the setup.
		if _, err := st.writeRows(ctx, s, persistState{}, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		sums, err := st.List(ctx, 1000)
		if err != nil || len(sums) != 1000 {
			b.Fatal(len(sums), err)
		}
	}
}
