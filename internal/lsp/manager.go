// Package lsp gives the model what language servers say about the files it
// edits (SPEC §22). A server starts when a file of its language is first
// edited in the session, stays up, and stops with the session. After an
// edit the tool result carries the problems that are new in the changed
// files, waiting for the server at most a bound; at the end of a turn
// auto-verify says whether the edited files are clean. A server that
// cannot start, crashes or is slow is reported once and never holds a turn.
package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Options configure a Manager. Zero values mean the real thing.
type Options struct {
	// Root is the workspace, absolute.
	Root string
	// Servers are the enabled servers; a file goes to the first, by name,
	// whose patterns match it.
	Servers []Spec
	// Wait bounds how long an edit's result waits for a running server;
	// StartWait how long the first edit waits for one to start.
	Wait, StartWait time.Duration
	// Warnings reports new warnings too.
	Warnings bool
	// Starter starts the servers (nil: Direct, no sandbox).
	Starter Starter
	// Environ is the servers' base environment (nil: coder's).
	Environ func() []string
	// LookPath finds a command (nil: exec.LookPath).
	LookPath func(string) (string, error)
}

// Manager is the session's language servers.
type Manager struct {
	opts Options
	mu   sync.Mutex
	// changed is closed, and replaced, whenever something a waiter may be
	// waiting for happens; seq counts the answers.
	changed chan struct{}
	seq     uint64
	servers map[string]*server
	closed  bool

	rootOnce sync.Once
	resolved string
}

// New returns a Manager; nothing starts until a file is edited.
func New(o Options) *Manager {
	if o.Starter == nil {
		o.Starter = Direct{}
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	slices.SortFunc(o.Servers, func(a, b Spec) int { return cmpString(a.Name, b.Name) })
	return &Manager{opts: o, changed: make(chan struct{}), servers: map[string]*server{}}
}

// root is the workspace with symlinks resolved, found on first use (New
// does nothing a session that edits no file would not need): servers see
// resolved paths, so must the documents.
func (m *Manager) root() string {
	m.rootOnce.Do(func() {
		m.resolved = m.opts.Root
		if r, err := filepath.EvalSymlinks(m.opts.Root); err == nil {
			m.resolved = r
		}
	})
	return m.resolved
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// specFor finds the server of a file: its resolved path and its path
// relative to the workspace. Files outside the workspace are not checked.
func (m *Manager) specFor(path string) (spec Spec, abs, rel string, ok bool) {
	abs = path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		abs = r
	} else if r, err := filepath.EvalSymlinks(filepath.Dir(path)); err == nil {
		abs = filepath.Join(r, filepath.Base(path)) // a deleted or new file
	}
	r, err := filepath.Rel(m.root(), abs)
	if err != nil || r == ".." || filepath.IsAbs(r) || len(r) > 2 && r[:3] == ".."+string(filepath.Separator) {
		return Spec{}, "", "", false
	}
	rel = filepath.ToSlash(r)
	for _, s := range m.opts.Servers {
		if s.matches(rel) {
			return s, abs, rel, true
		}
	}
	return Spec{}, "", "", false
}

// BeforeEdit is told the files a call is about to change: their servers
// start, and each file not yet open is read as it is, so what was wrong
// before the edit is not reported as new.
func (m *Manager) BeforeEdit(paths []string) {
	for _, p := range paths {
		spec, abs, rel, ok := m.specFor(p)
		if !ok {
			continue
		}
		text, found, err := readText(abs)
		m.mu.Lock()
		s := m.serverLocked(spec)
		if s.state == stateStarting || s.state == stateRunning {
			d := m.docLocked(s, abs, rel)
			if !d.opened && d.pending == nil && found && err == nil {
				d.pending = &text
			}
			if s.state == stateRunning {
				m.openLocked(s, d)
			}
		}
		m.mu.Unlock()
	}
}

// changedLocked wakes the waiters.
func (m *Manager) changedLocked() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// waitLocked waits until cond holds (checked with the mutex held), the
// deadline passes or ctx ends; the mutex is released while waiting.
func (m *Manager) waitLocked(ctx context.Context, deadline time.Time, cond func() bool) bool {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	for !cond() {
		ch := m.changed
		m.mu.Unlock()
		select {
		case <-ch:
		case <-t.C:
			m.mu.Lock()
			return cond()
		case <-ctx.Done():
			m.mu.Lock()
			return cond()
		}
		m.mu.Lock()
	}
	return true
}

// Close stops every server; later edits start none.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	var stops []func()
	for _, s := range m.servers {
		if s.state == stateRunning || s.state == stateStarting {
			cl, proc := s.cl, s.proc
			stops = append(stops, func() { stop(cl, proc) })
			s.state = stateStopped
		}
	}
	m.changedLocked()
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, f := range stops {
		wg.Go(f)
	}
	wg.Wait()
}
