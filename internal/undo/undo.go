// Package undo records what a turn changes in the workspace and puts it
// back, without git. File tools report each path before they write it
// (Turn.Capture); a Scanner compares the workspace before and after each bash
// call, so files a command changed are captured too. Snapshots are stored
// through the session store, so a turn can be undone after a restart.
package undo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/paths"
	"github.com/coder-agent/coder/internal/session"
)

// MaxCaptureSize is the largest file Turn.Capture keeps; a larger one is
// recorded as not captured and the edit goes ahead.
const MaxCaptureSize = 10 << 20

// Saver stores undo entries, and the state coder's calls left their paths
// in (left.go); *session.Store is one.
type Saver interface {
	SaveUndo(ctx context.Context, sessionID string, turn int, e session.UndoEntry) error
	SetUndoAfter(ctx context.Context, sessionID string, turn int, path, after string) error
}

// Loader reads undo entries back; *session.Store is one.
type Loader interface {
	UndoTurns(ctx context.Context, sessionID string) ([]int, error)
	LoadUndo(ctx context.Context, sessionID string, turn int) ([]session.UndoEntry, error)
}

// Turn is the undo recorder of one turn. It is safe for concurrent use.
type Turn struct {
	store     Saver
	sessionID string
	turn      int
	workspace string

	mu   sync.Mutex // held through a capture, so one path is saved once
	seen map[string]bool
	// after is the state coder's last call left each changed path in
	// (left.go).
	after map[string]afterState
}

// NewTurn starts recording turn of a session. workspace bounds the parent
// directories a capture records as created by the turn.
func NewTurn(store Saver, sessionID string, turn int, workspace string) *Turn {
	return &Turn{store: store, sessionID: sessionID, turn: turn,
		workspace: filepath.Clean(workspace), seen: map[string]bool{}, after: map[string]afterState{}}
}

// Capture saves the current state of abs the first time the turn sees it;
// file tools call it (their BeforeChange hook) before writing. A missing file
// is recorded as absent, together with its missing parent directories, so
// undo removes what the write creates. A file that cannot be captured (too
// large, unreadable) is recorded as such and nil is returned: the edit is not
// blocked, and undo reports the file. An error means the store failed.
//
// When the caller has just read the file whole, read is the content and fi
// the file's status taken before the read (nil: none read). It is recorded
// as read, without reading the file a second time, when the path is still
// that same file (os.SameFile), of that size, not modified since (its
// modification time); otherwise the file is read again. A write between
// the caller's read and this capture changes the modification time or the
// file, so the entry is still what the disk holds.
func (t *Turn) Capture(abs, read string, fi fs.FileInfo) error {
	if !filepath.IsAbs(abs) {
		return fmt.Errorf("undo: capture %q: path is not absolute", abs)
	}
	abs = filepath.Clean(abs)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen[abs] {
		return nil
	}
	e := readEntryAs(abs, MaxCaptureSize, read, fi)
	if !e.Existed {
		for _, d := range t.missingParents(abs) {
			if err := t.saveLocked(session.UndoEntry{Path: d, Mode: fs.ModeDir}); err != nil {
				return err
			}
		}
	}
	return t.saveLocked(e)
}

// Paths lists the captured paths (absolute, sorted), files and directories.
func (t *Turn) Paths() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ps := make([]string, 0, len(t.seen))
	for p := range t.seen {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// save records e unless its path was captured already in this turn.
func (t *Turn) save(e session.UndoEntry) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.saveLocked(e)
}

func (t *Turn) saveLocked(e session.UndoEntry) error {
	if t.seen[e.Path] {
		return nil
	}
	// Background: a cancelled tool call must not leave a write unrecorded.
	if err := t.store.SaveUndo(context.Background(), t.sessionID, t.turn, e); err != nil {
		return fmt.Errorf("undo: %w", err)
	}
	t.seen[e.Path] = true
	return nil
}

// missingParents lists the directories between the workspace and abs that do
// not exist yet, outermost first; none when abs is outside the workspace.
func (t *Turn) missingParents(abs string) []string {
	if !paths.Within(t.workspace, abs) {
		return nil
	}
	var ds []string
	for d := filepath.Dir(abs); d != t.workspace && d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		ds = append(ds, d)
	}
	slices.Reverse(ds)
	return ds
}

// readEntry describes abs as it is now: absent, a directory, a symbolic
// link (Content is its target) or a regular file up to maxSize bytes.
func readEntry(abs string, maxSize int64) session.UndoEntry {
	return readEntryAs(abs, maxSize, "", nil)
}

// readEntryAs is readEntry with what a caller read of abs: the content read
// under readFI, used when abs is still that file, unchanged since.
func readEntryAs(abs string, maxSize int64, read string, readFI fs.FileInfo) session.UndoEntry {
	e := session.UndoEntry{Path: abs}
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return e
	}
	e.Existed = true
	if err != nil {
		e.Skipped = "cannot read: " + err.Error()
		return e
	}
	e.Mode = fi.Mode() & keptMode
	switch {
	case fi.IsDir():
		return e
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		return withContent(e, []byte(target), err)
	case !fi.Mode().IsRegular():
		e.Skipped = "not a regular file"
		return e
	case fi.Size() > maxSize:
		e.Skipped = fmt.Sprintf("too large to capture (%d bytes, limit %d)", fi.Size(), maxSize)
		return e
	}
	// The tool's read stands for the disk by the rule the scanner's cache
	// keeps: the same stat, and an mtime old enough that a write in the
	// same clock tick cannot hide behind it (racy).
	if readFI != nil && statOf(fi) == statOf(readFI) && fi.Size() == int64(len(read)) &&
		!racy(statOf(readFI), time.Now()) {
		return withContent(e, []byte(read), nil)
	}
	data, err := os.ReadFile(abs)
	return withContent(e, data, err)
}

func withContent(e session.UndoEntry, data []byte, err error) session.UndoEntry {
	if err != nil {
		e.Skipped = "cannot read: " + err.Error()
		return e
	}
	e.Content = data
	return e
}

// keptMode is what an entry records of a file's mode: its type as far as
// undo handles it, and the bits a restore puts back.
const keptMode = fs.ModeDir | fs.ModeSymlink | fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
