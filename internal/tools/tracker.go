package tools

import (
	"fmt"
	"hash/maphash"
	"os"
	"sync"
	"time"
)

// ReadTracker remembers, per absolute path, the state of each file as the
// model last saw it: when read read it, or when write/edit/patch wrote it.
// The mutating tools refuse to change a file the model has not seen, or one
// that changed on disk since (a person's editor, a formatter run by bash):
// the model would otherwise overwrite work it does not know about.
//
// One tracker belongs to one session. It is safe for concurrent use (read
// runs concurrently with other read-only tools).
type ReadTracker struct {
	seed maphash.Seed
	mu   sync.Mutex
	seen map[string]fileStamp
}

// fileStamp is a file's state when the model saw it.
type fileStamp struct {
	modTime time.Time
	size    int64
	// hash of the content; hashed false when the file was too large to hash
	// and only modTime and size can tell a change.
	hash   uint64
	hashed bool
}

// NewReadTracker returns an empty tracker.
func NewReadTracker() *ReadTracker {
	return &ReadTracker{seed: maphash.MakeSeed(), seen: map[string]fileStamp{}}
}

// newHash returns a streaming hash compatible with the tracker's stamps.
func (t *ReadTracker) newHash() *maphash.Hash {
	h := &maphash.Hash{}
	h.SetSeed(t.seed)
	return h
}

// Record notes that the model has seen the file at abs with content data
// (read it, or wrote it).
func (t *ReadTracker) Record(abs string, data []byte) {
	t.record(abs, t.stamp(abs, maphash.Bytes(t.seed, data), true))
}

// RecordText is Record of a file's text (write, edit: no copy of it).
func (t *ReadTracker) RecordText(abs, text string) {
	t.record(abs, t.stamp(abs, maphash.String(t.seed, text), true))
}

// recordHash is Record for a content hashed while it was streamed.
func (t *ReadTracker) recordHash(abs string, h *maphash.Hash, hashed bool) {
	t.record(abs, t.stamp(abs, h.Sum64(), hashed))
}

func (t *ReadTracker) stamp(abs string, hash uint64, hashed bool) fileStamp {
	st := fileStamp{hash: hash, hashed: hashed}
	if fi, err := os.Stat(abs); err == nil {
		st.modTime, st.size = fi.ModTime(), fi.Size()
	}
	return st
}

func (t *ReadTracker) record(abs string, st fileStamp) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen[abs] = st
}

// Forget drops abs (the file was deleted or moved away).
func (t *ReadTracker) Forget(abs string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.seen, abs)
}

// Check tells whether the model may change the file at abs whose current
// content is text; rel names it in the message. An empty file that was
// never read may be changed: there is nothing in it to lose.
func (t *ReadTracker) Check(abs, rel string, text string) error {
	t.mu.Lock()
	st, ok := t.seen[abs]
	t.mu.Unlock()
	switch {
	case !ok && len(text) == 0:
		return nil
	case !ok:
		return fmt.Errorf("read %s before editing it (use the read tool)", rel)
	case st.hashed && st.hash == maphash.String(t.seed, text):
		return nil
	case !st.hashed && st.size == int64(len(text)) && sameModTime(abs, st.modTime):
		return nil
	}
	return fmt.Errorf("%s changed on disk since you read it; read it again before editing", rel)
}

func sameModTime(abs string, mt time.Time) bool {
	fi, err := os.Stat(abs)
	return err == nil && fi.ModTime().Equal(mt)
}
