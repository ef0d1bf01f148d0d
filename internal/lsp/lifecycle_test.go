package lsp

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// started records the processes a Direct starter started, so a test can
// see that they ended or end one itself.
type started struct {
	mu    sync.Mutex
	procs []Process
}

func (s *started) Start(argv, env []string, dir string, stderr io.Writer) (Process, error) {
	p, err := Direct{}.Start(argv, env, dir, stderr)
	if err == nil {
		s.mu.Lock()
		s.procs = append(s.procs, p)
		s.mu.Unlock()
	}
	return p, err
}

func (s *started) only(t *testing.T) Process {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.procs) != 1 {
		t.Fatalf("%d processes started, want 1", len(s.procs))
	}
	return s.procs[0]
}

func ended(p Process, within time.Duration) bool {
	select {
	case <-p.Done():
		return true
	case <-time.After(within):
		return false
	}
}

// A server that exits as it starts is reported once, with what it said;
// later edits go on without a word.
func TestServerThatExitsIsToldOnce(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.txt": "one\n"})
	m := New(Options{Root: dir, Wait: time.Minute, StartWait: time.Minute,
		Servers: []Spec{{Name: "broken", Command: "sh", Args: []string{"-c", "echo cannot read its config >&2; exit 3"}, Patterns: []string{"*.txt"}}}})
	t.Cleanup(m.Close)
	a := filepath.Join(dir, "a.txt")
	got := edit(t, m, a, "two\n")
	if !strings.Contains(got, "sh exited as it started (exit status 3): cannot read its config") {
		t.Errorf("first edit: %q", got)
	}
	if got := edit(t, m, a, "three\n"); got != "" {
		t.Errorf("second edit: %q", got)
	}
	if st := m.Describe(); !strings.Contains(st, "broken") || !strings.Contains(st, "failed: sh exited") {
		t.Errorf("/lsp: %s", st)
	}
}

// A server that never answers holds the first edit for the start bound
// only, is named once, is not waited for again while it starts, and is
// stopped with the session.
func TestServerThatNeverAnswersIsBounded(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.txt": "one\n"})
	st := &started{}
	m := New(Options{Root: dir, Wait: 200 * time.Millisecond, StartWait: 500 * time.Millisecond, Starter: st,
		Servers: []Spec{{Name: "mute", Command: "sleep", Args: []string{"600"}, Patterns: []string{"*.txt"}}}})
	a := filepath.Join(dir, "a.txt")
	t0 := time.Now()
	got := edit(t, m, a, "two\n")
	first := time.Since(t0)
	if !strings.Contains(got, "mute is still starting, so this edit was not checked") {
		t.Errorf("first edit: %q", got)
	}
	t0 = time.Now()
	if got := edit(t, m, a, "three\n"); got != "" {
		t.Errorf("second edit: %q", got)
	}
	second := time.Since(t0)
	// Slack for a loaded machine; without the bounds an edit would wait
	// for the handshake's two minutes.
	if first < 500*time.Millisecond || first > 10*time.Second || second > 5*time.Second {
		t.Errorf("edits took %v and %v", first, second)
	}
	p := st.only(t)
	t0 = time.Now()
	m.Close()
	if !ended(p, 10*time.Second) {
		t.Fatal("the server outlived the session")
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Errorf("Close took %v", d)
	}
}

// A server whose command is not installed changes nothing; /lsp says how
// to install the usual ones.
func TestMissingServerChangesNothing(t *testing.T) {
	dir := writeTree(t, map[string]string{"a.go": "package m\n"})
	m := New(Options{Root: dir, Wait: time.Second, StartWait: time.Second,
		LookPath: func(string) (string, error) { return "", exec.ErrNotFound },
		Servers:  []Spec{{Name: "gopls", Command: "gopls", Patterns: []string{"*.go"}}}})
	t.Cleanup(m.Close)
	if got := edit(t, m, filepath.Join(dir, "a.go"), "package m\n\nvar s string = 1\n"); got != "" {
		t.Errorf("edit: %q", got)
	}
	if c := m.Check(context.Background(), []string{filepath.Join(dir, "a.go")}); c != "" {
		t.Errorf("end-of-turn check: %q", c)
	}
	st := m.Describe()
	for _, want := range []string{"gopls", "not installed", "No language server is installed", "go install golang.org/x/tools/gopls@latest"} {
		if !strings.Contains(st, want) {
			t.Errorf("/lsp lacks %q:\n%s", want, st)
		}
	}
}

// A server that dies after it started is reported once; the session goes
// on without it.
func TestServerThatDiesIsToldOnce(t *testing.T) {
	needCommand(t, "gopls")
	dir := writeTree(t, map[string]string{"go.mod": goMod, "a.go": "package m\n"})
	st := &started{}
	m := New(Options{Root: dir, Wait: slowMachine, StartWait: slowMachine, Starter: st,
		Servers: []Spec{{Name: "gopls", Command: "gopls", Patterns: []string{"*.go"}}}})
	t.Cleanup(m.Close)
	a := filepath.Join(dir, "a.go")
	if got := edit(t, m, a, "package m\n\nvar n = 1\n"); got != "" {
		t.Fatalf("clean edit: %q", got)
	}
	st.only(t).Stop() // not asked for by the manager: a crash as far as it knows
	got := edit(t, m, a, "package m\n\nvar n string = 1\n")
	if !strings.Contains(got, "gopls stopped unexpectedly") || !strings.Contains(got, "coder goes on without it") {
		t.Errorf("edit after the crash: %q", got)
	}
	if got := edit(t, m, a, "package m\n\nvar n = 1\n"); got != "" {
		t.Errorf("the next edit: %q", got)
	}
}
