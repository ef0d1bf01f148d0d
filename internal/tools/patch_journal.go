package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coder-agent/coder/internal/edit"
	"github.com/coder-agent/coder/internal/lockfile"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/regfile"
)

// patchJournal records a patch's steps before any of them is taken, so a
// patch cut short by a crash is finished or undone at the next start
// (RecoverPatches). A zero dir keeps no journal: the patch is still all or
// nothing within the process.
type patchJournal struct{ dir string }

// journalStep is one step: a staged temporary renamed over its target, a
// deletion, or for a move the source removed after.
type journalStep struct {
	Target string `json:"target"`
	Temp   string `json:"temp,omitempty"`
	Remove string `json:"remove,omitempty"`
}

type journalRecord struct {
	Workspace string        `json:"workspace"`
	Committed bool          `json:"committed"`
	Steps     []journalStep `json:"steps"`
}

// openJournal is one patch's journal file, and the lock beside it
// (patch-X.lock) that says its patch is live: held from before the journal
// is written until after it is removed, and released by the kernel if the
// process dies. Recovery leaves a journal whose lock is held alone — it is
// another running coder's patch, not a crashed one.
type openJournal struct {
	path string
	lock *lockfile.Lock
	rec  journalRecord
}

// begin records the planned steps, not yet committed: a crash from here
// until commit leaves only temporaries, which recovery removes.
func (j patchJournal) begin(workspace string, changes []*fileChange) (*openJournal, error) {
	oj := &openJournal{rec: journalRecord{Workspace: workspace}}
	for _, c := range changes {
		st := journalStep{Target: c.dst.Abs, Temp: c.tmp.Abs}
		switch {
		case c.kind == edit.DeleteFile:
			st = journalStep{Remove: c.src.Abs}
		case c.moved():
			st.Remove = c.src.Abs
		}
		oj.rec.Steps = append(oj.rec.Steps, st)
	}
	if j.dir == "" {
		return oj, nil
	}
	if err := os.MkdirAll(j.dir, 0o700); err != nil {
		return nil, err
	}
	name := filepath.Join(j.dir, "patch-"+randomSuffix())
	lock, err := lockfile.TryLock(name + ".lock")
	if err != nil {
		return nil, err
	}
	oj.path, oj.lock = name+".json", lock
	if err := oj.write(); err != nil {
		oj.done()
		return nil, err
	}
	return oj, nil
}

// commit marks the patch committed: from here recovery finishes it.
func (oj *openJournal) commit() error {
	oj.rec.Committed = true
	return oj.write()
}

// done removes the journal once every step is taken (or undone).
func (oj *openJournal) done() {
	if oj.path != "" {
		_ = os.Remove(oj.path)
		if dir, err := os.OpenRoot(filepath.Dir(oj.path)); err == nil {
			syncDir(dir)
			_ = dir.Close()
		}
	}
	oj.lock.Unlock()
}

func (oj *openJournal) write() error {
	if oj.path == "" {
		return nil
	}
	data, err := json.Marshal(oj.rec)
	if err != nil {
		return err
	}
	return writeFileAtomic(oj.path, data, 0o600)
}

// RecoverPatches finishes or undoes the patches a crash cut short in ws,
// from the journals in dir: a committed patch has its remaining staged
// files renamed into place and its deletions done; an uncommitted one has
// its temporaries removed. A patch whose lock a live process holds is not
// cut short: it is left to that process. It returns a line per patch
// recovered.
func RecoverPatches(ws *Workspace, dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var notes []string
	var errs []error
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "patch-") && strings.HasSuffix(e.Name(), ".lock") {
			removeStaleLock(dir, e.Name())
			continue
		}
		if !strings.HasPrefix(e.Name(), "patch-") || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		lock := strings.TrimSuffix(path, ".json") + ".lock"
		if live, err := lockfile.Held(lock); live || err != nil {
			continue // another coder is applying it (or we cannot tell: leave it)
		}
		note, err := recoverOne(ws, path)
		if err != nil {
			errs = append(errs, fmt.Errorf("recovering %s: %w", path, err))
			continue
		}
		if note != "" {
			notes = append(notes, note)
		}
		_ = os.Remove(path)
		_ = os.Remove(lock)
	}
	return notes, errors.Join(errs...)
}

// removeStaleLock removes a patch's lock left without its journal by a
// process that died before writing it.
func removeStaleLock(dir, name string) {
	lock := filepath.Join(dir, name)
	journal := strings.TrimSuffix(lock, ".lock") + ".json"
	if _, err := os.Lstat(journal); err == nil {
		return
	}
	if live, err := lockfile.Held(lock); !live && err == nil {
		_ = os.Remove(lock)
	}
}

func recoverOne(ws *Workspace, path string) (string, error) {
	data, err := regfile.Read(path, 16<<20)
	if err != nil {
		return "", err
	}
	var rec journalRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return "", nil // a journal torn before it counted: nothing was committed
	}
	if filepath.Clean(rec.Workspace) != ws.Root {
		return "", fmt.Errorf("the journal belongs to %s", rec.Workspace)
	}
	var errs []error
	for _, st := range rec.Steps {
		tmp, tgt, rm := ws.journalTarget(st.Temp), ws.journalTarget(st.Target), ws.journalTarget(st.Remove)
		if !rec.Committed {
			if st.Temp != "" {
				if err := ws.remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, err)
				}
			}
			continue
		}
		if st.Temp != "" {
			if err := ws.rename(tmp, tgt); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		if st.Remove != "" {
			if err := ws.remove(rm); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	if rec.Committed {
		return fmt.Sprintf("finished a patch of %s that an earlier run was stopped in the middle of", plural.Of(len(rec.Steps), "file")), nil
	}
	return fmt.Sprintf("undid a patch of %s that an earlier run was stopped before it changed anything", plural.Of(len(rec.Steps), "file")), nil
}

// journalTarget turns a journaled absolute path back into a target.
func (w *Workspace) journalTarget(abs string) target {
	if abs == "" {
		return target{}
	}
	tg := target{Abs: abs, Inside: w.contains(abs)}
	if tg.Inside {
		tg.Rel = w.Rel(abs)
	}
	return tg
}
