package undo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/coder-agent/coder/internal/session"
)

// What /undo reverts is what coder's calls changed, not what the person
// changed meanwhile (their editor, another terminal). At the end of each
// call the turn records the state each path it changed was left in (a
// fingerprint); at the start of the next call a path no longer in that
// state was changed by something else between coder's calls, and is marked
// so for good. /undo then restores a path only while it is still as
// coder's last change left it, and names the others, untouched.

// outside marks a path changed between coder's calls.
const outside = "outside"

// maxFingerprint bounds the files fingerprinted by content; a larger one
// is told by its size, modification time and inode.
const maxFingerprint = 64 << 20

// fingerprint is the state of abs now: absent, a directory, a link and its
// target, or a file's mode and content.
func fingerprint(abs string) string {
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "absent"
	case err != nil:
		return "unreadable"
	case fi.IsDir():
		return "dir"
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(abs)
		return "link:" + target
	case !fi.Mode().IsRegular():
		return "special:" + fi.Mode().String()
	case fi.Size() > maxFingerprint:
		return fmt.Sprintf("big:%d:%d:%d", fi.Size(), fi.ModTime().UnixNano(), inode(fi))
	}
	// No following a link swapped in since the Lstat, no hanging on a FIFO.
	f, err := os.OpenFile(abs, os.O_RDONLY|openNoFollow, 0)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxFingerprint+1)); err != nil {
		return "unreadable"
	}
	return fileFingerprint(fi.Mode()&keptMode, hex.EncodeToString(h.Sum(nil)))
}

// afterState is a path's fingerprint as coder left it, with the stat
// that lets a later check skip reading it.
type afterState struct {
	fp string
	st fstat
	ok bool // st was taken
	at time.Time
}

// stateOf is abs's state now.
func stateOf(abs string) afterState {
	a := afterState{at: time.Now()}
	if fi, err := os.Lstat(abs); err == nil {
		a.st, a.ok = statOf(fi), true
	}
	a.fp = fingerprint(abs)
	return a
}

// unchanged tells, from a stat alone when it can, whether abs is still in
// state a; now is a, stamped again when its content had to be compared
// (a file just written: its stat cannot tell yet), so later checks are a
// stat.
func (a afterState) unchanged(abs string) (same bool, now afterState) {
	fi, err := os.Lstat(abs)
	if a.ok && err == nil && statOf(fi) == a.st && !racy(a.st, a.at) {
		return true, a
	}
	now = stateOf(abs)
	return now.fp == a.fp, now
}

// settle records, for each path changed by the call that just ended, the
// state the call left it in. A path marked outside stays so: it holds the
// person's work whatever coder did after.
func (t *Turn) settle(paths []string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range paths {
		if !t.seen[p] || t.after[p].fp == outside {
			continue
		}
		if err := t.setAfter(p, stateOf(p)); err != nil {
			return err
		}
	}
	return nil
}

// checkOutside marks the paths whose state changed since coder's last
// call left them: something else changed them in between.
func (t *Turn) checkOutside() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p, a := range t.after {
		if a.fp == outside {
			continue
		}
		same, now := a.unchanged(p)
		if same {
			t.after[p] = now
			continue
		}
		if err := t.setAfter(p, afterState{fp: outside}); err != nil {
			return err
		}
	}
	return nil
}

// setAfter records p's state; t.mu is held.
func (t *Turn) setAfter(p string, a afterState) error {
	if err := t.store.SetUndoAfter(context.Background(), t.sessionID, t.turn, p, a.fp); err != nil {
		return fmt.Errorf("undo: %w", err)
	}
	t.after[p] = a
	return nil
}

// changedOutside reports whether e's path is no longer as coder's last
// change in its turn left it: marked so between calls, or changed since.
// A path whose state was not recorded (an older snapshot, a call cut
// short) counts as coder's.
func changedOutside(e session.UndoEntry) bool {
	return e.After == outside || e.After != "" && fingerprint(e.Path) != e.After
}
