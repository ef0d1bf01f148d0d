package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/plural"
)

// fileCheck is one changed file's outcome.
type fileCheck struct {
	rel    string
	server string
	probs  []problem // new problems worth telling
	fresh  bool      // the file's state before the edit is not known
	note   string    // a server's failure or slowness, said once
}

// AfterEdit returns what the servers found new in the files a call changed
// (absolute paths): text for the tool result and a line for people, both
// "" when nothing is new or no server checks them. It waits at most the
// bound (the start bound for a server's first edit) and never returns
// later than ctx allows.
func (m *Manager) AfterEdit(ctx context.Context, paths []string) (text, summary string) {
	start := time.Now()
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		out []fileCheck
	)
	for _, p := range paths {
		spec, abs, rel, ok := m.specFor(p)
		if !ok {
			continue
		}
		wg.Go(func() {
			if fc, ok := m.checkEdit(ctx, spec, abs, rel, start); ok {
				mu.Lock()
				out = append(out, fc)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.SortFunc(out, func(a, b fileCheck) int { return cmpString(a.rel, b.rel) })
	return formatChecks(out), summarize(out)
}

// checkEdit brings the server's copy of one changed file up to date and
// compares what it says with what was known.
func (m *Manager) checkEdit(ctx context.Context, spec Spec, abs, rel string, start time.Time) (fileCheck, bool) {
	text, found, err := readText(abs)
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.serverLocked(spec)
	fc := fileCheck{rel: rel, server: spec.Name}
	wait := m.opts.Wait
	switch {
	case !s.answered:
		wait = max(wait, m.opts.StartWait)
	case s.state == stateStarting:
		wait = 0 // said to be slow to start already: not waited for again
	}
	deadline := start.Add(wait)
	if !m.waitLocked(ctx, deadline, func() bool { return s.state != stateStarting }) {
		if ctx.Err() != nil {
			return fc, false // cancelled: nobody is slow
		}
		return m.slowLocked(s, fc, "is still starting")
	}
	if s.state != stateRunning {
		return m.failedLocked(s, fc)
	}
	d := m.docLocked(s, abs, rel)
	if err != nil || !found {
		m.closeLocked(s, d)
		return fc, false
	}
	if !m.baselineLocked(ctx, s, d, deadline) {
		fc.fresh = true
	}
	if !d.opened {
		m.sendLocked(s, d, text, true) // a new file: all it has is new
	} else if d.texts[d.version] != text || !d.res.got {
		m.sendLocked(s, d, text, false)
	}
	if err := m.awaitLocked(ctx, s, d, d.version, deadline); err != nil {
		switch {
		case ctx.Err() != nil:
			return fc, false
		case errors.Is(err, errNoAnswer):
			return m.slowLocked(s, fc, "did not answer within "+wait.Round(time.Millisecond).String())
		}
		return m.slowLocked(s, fc, "gave no diagnostics for "+rel+" ("+clip(err.Error(), 200)+")")
	}
	if s.state != stateRunning {
		return m.failedLocked(s, fc)
	}
	s.answered = true
	now := d.res.probs
	fc.probs = reported(newSince(now, d.known), m.opts.Warnings)
	d.known = setOf(now)
	return fc, len(fc.probs) > 0
}

// baselineLocked opens a file the session has not shown its server yet
// with its text from before the edit, and waits for what the server says
// about it: the problems that are not new. false: not known in time.
func (m *Manager) baselineLocked(ctx context.Context, s *server, d *doc, deadline time.Time) bool {
	if d.baseline != nil {
		return true
	}
	m.openLocked(s, d)
	if !d.opened {
		d.baseline, d.known = multiset{}, multiset{} // new: nothing was there
		return true
	}
	v := d.version
	if v == 1 && m.awaitLocked(ctx, s, d, v, deadline) == nil && d.res.version == v {
		d.baseline = setOf(d.res.probs)
		d.known = setOf(d.res.probs)
		return true
	}
	if d.baseline == nil {
		d.baseline = multiset{}
	}
	return false
}

// closeLocked forgets a file that is gone.
func (m *Manager) closeLocked(s *server, d *doc) {
	if d.opened {
		path := d.path
		m.enqueueLocked(s, func(cl *client) {
			ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			defer cancel()
			_ = cl.didClose(ctx, path)
		})
	}
	delete(s.docs, d.path)
}

// slowLocked is the outcome of a server that did not answer in time: the
// model is told once, then the edit goes on without it.
func (m *Manager) slowLocked(s *server, fc fileCheck, what string) (fileCheck, bool) {
	s.answered = true // its start's longer wait is spent
	if s.slow {
		return fc, false
	}
	s.slow = true
	fc.note = fmt.Sprintf("%s %s, so this edit was not checked (/lsp shows what it says later)", s.spec.Name, what)
	return fc, true
}

// failedLocked is the outcome of a server that is missing, failed or
// stopped: a failure is told once.
func (m *Manager) failedLocked(s *server, fc fileCheck) (fileCheck, bool) {
	if s.state != stateFailed || s.told {
		return fc, false
	}
	s.told = true
	fc.note = s.reason + "; coder goes on without it this session (/lsp shows its state)"
	return fc, true
}

// Check is the end-of-turn check of the files the turn edited: "LSP
// clean" when no server finds an error in them that was not there before
// the session touched them, "LSP: …" naming the errors otherwise, and ""
// when no server checked any of them.
func (m *Manager) Check(ctx context.Context, paths []string) string {
	start := time.Now()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		checked bool
		errs    []string
	)
	for _, p := range paths {
		spec, abs, rel, ok := m.specFor(p)
		if !ok {
			continue
		}
		wg.Go(func() {
			probs, ok := m.recheck(ctx, spec, abs, rel, start.Add(m.opts.Wait))
			mu.Lock()
			defer mu.Unlock()
			checked = checked || ok
			for _, p := range probs {
				errs = append(errs, fmt.Sprintf("%s:%d:%d", rel, p.Line+1, column(p.Text, p.Col)))
			}
		})
	}
	wg.Wait()
	switch {
	case !checked:
		return ""
	case len(errs) == 0:
		return "LSP clean"
	}
	slices.Sort(errs)
	shown := errs
	if len(shown) > 3 {
		shown = append(slices.Clone(shown[:3]), "…")
	}
	return fmt.Sprintf("LSP: %s in the edited files (%s)", plural.Count(len(errs), "error", "errors"), strings.Join(shown, ", "))
}

// recheck brings an open file up to date with the disk (a command may have
// changed it since the edit) and returns its errors that were not there
// before the session touched it; ok is false when no answer came in time.
func (m *Manager) recheck(ctx context.Context, spec Spec, abs, rel string, deadline time.Time) ([]problem, bool) {
	text, found, err := readText(abs)
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.servers[spec.Name]
	if s == nil || s.state != stateRunning {
		return nil, false
	}
	d := s.docs[abs]
	if d == nil || !d.opened || err != nil || !found {
		return nil, false
	}
	if d.texts[d.version] != text || !d.res.got {
		m.sendLocked(s, d, text, false)
	} else if s.cl.asks() {
		d.res = answer{} // edits to other files since may have changed its answer: ask again
	}
	if m.awaitLocked(ctx, s, d, d.version, deadline) != nil || s.state != stateRunning {
		return nil, false
	}
	return reported(newSince(d.res.probs, d.baseline), false), true
}
