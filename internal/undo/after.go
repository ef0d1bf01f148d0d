package undo

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"github.com/coder-agent/coder/internal/session"
)

// differ works out, for After, what one bash call changed.
type differ struct {
	s *Scanner
	m *Mark
	t *Turn

	changed, notCaptured []string
	err                  error // the first failure to save
}

// file handles one path: before is its stat at the Mark, now its stat at
// After; nil when it was not there.
func (d *differ) file(rel string, before, now *fstat) {
	switch {
	case before == nil: // created: undo removes it
		d.record(rel, session.UndoEntry{Path: filepath.Join(d.s.root, rel)})
	case now == nil:
		d.recordPrior(rel, *before)
		d.s.drop(rel)
	case *before == *now && !racy(*before, d.m.at):
		// unchanged, by its stat: the common case costs nothing more
	default:
		changed, cur, at, read := d.compare(rel, filepath.Join(d.s.root, rel), *before, *now)
		if changed {
			d.recordPrior(rel, *before) // before the cache moves on
		}
		if read {
			d.s.put(rel, *now, cur, at) // the next Before need not read it
		}
	}
}

// compare decides whether a file whose stat changed (or is racy) changed.
// Its stat alone decides when the prior content is unknown or the file is
// now too large to read; otherwise its content and mode are compared, so a
// touch is not a change. cur is what was read, if read.
func (d *differ) compare(rel, abs string, before, now fstat) (changed bool, cur []byte, at time.Time, read bool) {
	old, known := d.s.prior(rel, before)
	if !known || now.mode.IsRegular() && now.size > d.s.opts.MaxFileSize {
		return before != now, nil, at, false
	}
	cur, at, err := readContent(abs, now)
	if err != nil {
		return true, nil, at, false
	}
	return !bytes.Equal(old, cur) || before.mode != now.mode, cur, at, true
}

// recordPrior saves the state of rel at the Mark: its cached content, or
// that it was not captured and why.
func (d *differ) recordPrior(rel string, before fstat) {
	e := session.UndoEntry{Path: filepath.Join(d.s.root, rel), Existed: true, Mode: before.mode & keptMode}
	if data, ok := d.s.prior(rel, before); ok {
		e.Content = data
	} else {
		why := d.m.missed[rel]
		if why == "" {
			why = "not read"
		}
		e.Skipped = "content before the bash command not captured: " + why
		d.notCaptured = append(d.notCaptured, rel)
	}
	d.record(rel, e)
}

func (d *differ) record(rel string, e session.UndoEntry) {
	if e.Mode.IsDir() {
		rel += "/"
	}
	d.changed = append(d.changed, rel)
	if d.t == nil || d.err != nil {
		return
	}
	d.err = d.t.save(e)
}

// dirs records the directories the command created or deleted.
func (d *differ) dirs(now map[string]fs.FileMode) {
	for rel, mode := range d.m.dirs {
		if _, ok := now[rel]; !ok {
			d.record(rel, session.UndoEntry{Path: filepath.Join(d.s.root, rel), Existed: true, Mode: mode})
		}
	}
	for rel := range now {
		if _, ok := d.m.dirs[rel]; !ok {
			d.record(rel, session.UndoEntry{Path: filepath.Join(d.s.root, rel), Mode: fs.ModeDir})
		}
	}
}

func (d *differ) result() (changed, notCaptured []string, err error) {
	slices.Sort(d.changed)
	slices.Sort(d.notCaptured)
	return d.changed, d.notCaptured, d.err
}
