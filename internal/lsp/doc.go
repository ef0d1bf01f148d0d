package lsp

import (
	"context"
	"time"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// doc is a file the session showed a server: what was sent, and what the
// server said about it.
type doc struct {
	path string // absolute, as the server knows it
	rel  string // as the model knows it
	// pending is the file's text before the edit, read by BeforeEdit while
	// the doc is not open: it is opened with that text first, so its
	// problems from before the edit are known.
	pending *string
	opened  bool
	version int32            // last sent
	texts   map[int32]string // text of each version not yet answered for
	sent    map[int32]uint64 // the manager's sequence number when each was sent
	// res is the latest answer: the server's diagnostics for a version.
	res answer
	// baseline is what the file had when the session first showed it to
	// the server (nil: not known in time); known is what the model has
	// been told or had before (baseline, then each report).
	baseline multiset
	known    multiset
	// last are the problems of the latest answer, for /lsp.
	last []problem
	// refused is a version the server would not give diagnostics for,
	// and refusal its error.
	refused int32
	refusal error
}

// answer is a server's diagnostics for a version of a doc (0: a server
// that does not say which), with the sequence number it came at.
type answer struct {
	version int32
	seq     uint64
	got     bool
	probs   []problem
}

func (m *Manager) docLocked(s *server, path, rel string) *doc {
	d := s.docs[path]
	if d == nil {
		d = &doc{path: path, rel: rel, texts: map[int32]string{}, sent: map[int32]uint64{}}
		s.docs[path] = d
	}
	return d
}

// openLocked sends the pending text of a doc not yet open.
func (m *Manager) openLocked(s *server, d *doc) {
	if d.opened || d.pending == nil {
		return
	}
	text := *d.pending
	d.pending = nil
	m.sendLocked(s, d, text, true)
}

// sendLocked sends text as the doc's next version (didOpen for the first).
func (m *Manager) sendLocked(s *server, d *doc, text string, open bool) {
	d.version++
	d.texts[d.version], d.sent[d.version] = text, m.seq
	// A server that never answers must not make the session keep every
	// version: an answer this late is of no use.
	delete(d.texts, d.version-keptVersions)
	delete(d.sent, d.version-keptVersions)
	v, path, lang := d.version, d.path, languageID(d.path)
	d.opened = true
	m.enqueueLocked(s, func(cl *client) {
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		defer cancel()
		if open {
			_ = cl.didOpen(ctx, path, lang, v, text)
		} else {
			_ = cl.didChange(ctx, path, v, text)
		}
	})
}

// keptVersions is how many versions of a doc an answer may still be for.
const keptVersions = 8

// writeTimeout bounds one notification's write (the write itself cannot
// be cancelled; a server that stops reading is found by its queue).
const writeTimeout = 10 * time.Second

// published takes a server's publishDiagnostics.
func (m *Manager) published(s *server, p published) {
	uri, err := protocol.ParseDocumentURI(p.URI)
	if err != nil {
		return
	}
	path, err := uri.Path()
	if err != nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := s.docs[path]
	if d == nil || s.cl == nil || s.cl.asks() {
		return // a file the session did not open, or a server coder asks instead
	}
	m.answerLocked(d, p.Version, p.Diagnostics)
}

// answerLocked records diagnostics for version v of d (0: the server did
// not say; taken as the latest version sent).
func (m *Manager) answerLocked(d *doc, v int32, diags []diagnostic) {
	if v == 0 {
		v = d.version
	}
	text, ok := d.texts[v]
	if !ok || v < d.res.version {
		return // older than what is known already
	}
	m.seq++
	d.res = answer{version: v, seq: m.seq, got: true, probs: problems(diags, text)}
	d.last = d.res.probs
	for old := range d.texts {
		if old < v {
			delete(d.texts, old)
			delete(d.sent, old)
		}
	}
	m.changedLocked()
}

// answered reports whether d has an answer for version v: one that says
// it is for v or later, or one that came after v was sent from a server
// that does not say.
func (d *doc) answered(v int32) bool {
	return d.res.got && (d.res.version > v || d.res.version == v && d.res.seq > d.sent[v])
}

// awaitLocked waits, with the mutex held (it is released while waiting),
// until d has an answer for version v, asking the server for one when it
// can be asked. The error says why there is none: the deadline or ctx came
// first (errNoAnswer), or the server refused to answer.
func (m *Manager) awaitLocked(ctx context.Context, s *server, d *doc, v int32, deadline time.Time) error {
	if s.cl != nil && s.cl.asks() && !d.answered(v) {
		path := d.path
		m.enqueueLocked(s, func(cl *client) {
			ctx, cancel := context.WithDeadline(ctx, deadline)
			defer cancel()
			diags, err := cl.fetch(ctx, path)
			m.mu.Lock()
			defer m.mu.Unlock()
			switch {
			case err == nil && d.version == v:
				m.answerLocked(d, v, diags)
			case err != nil && ctx.Err() == nil:
				d.refused, d.refusal = v, err
				m.changedLocked()
			}
		})
	}
	m.waitLocked(ctx, deadline, func() bool { return d.answered(v) || d.refused == v || s.state != stateRunning })
	switch {
	case d.answered(v):
		return nil
	case d.refused == v:
		return d.refusal
	}
	return errNoAnswer
}

// errNoAnswer: the server said nothing about the document in time.
const errNoAnswer = noAnswer("no answer in time")

type noAnswer string

func (e noAnswer) Error() string { return string(e) }
