//go:build unix

package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder-agent/coder/internal/control"
	"github.com/coder-agent/coder/internal/paths"
)

// The journal keeps a Guard's baseline on disk while sandboxed processes
// run, so that what they changed is still put back if coder dies before
// their end (SIGKILL, a crash): the next coder started in the workspace
// restores it (RecoverJournals). It lives in coder's user directory, not
// in the workspace: below LevelFull a command may write the workspace's
// .coder, and a journal it forged would make coder write what it chose.
//
// While the guard is open the journal's mtime is refreshed every
// heartbeat: a coder that died stopped refreshing it, so what changed
// later than its last refresh (plus a margin for a beat late on a busy
// machine) was not a sandboxed command's, and is left as it is.

const (
	heartbeat   = 2 * time.Second
	beatsMargin = 3 * heartbeat
)

// One process may keep several journals at once (an editor's threads over
// ACP, coder mcp serve's turns: a session each, with a guard each), so a
// journal is named by the process and a sequence number, and those this
// process still keeps are known here: another of its sessions starting in
// the same workspace must not take them for a dead coder's.
var (
	journalSeq   atomic.Uint64
	liveJournals sync.Map // a journal's file name → struct{}
)

type journal struct {
	path      string
	workspace string
	mu        sync.Mutex
	stop      chan struct{}
	done      chan struct{}
}

type journalFile struct {
	Workspace string        `json:"workspace"`
	PID       int           `json:"pid"`
	ProcStart uint64        `json:"proc_start"` // so a reused pid is not taken for the owner
	Level     string        `json:"level"`
	Roots     []journalRoot `json:"roots"`
}

type journalRoot struct {
	Path     string             `json:"path"`
	Place    control.Place      `json:"place"`
	Patterns []string           `json:"patterns,omitempty"`
	Base     []journalEntry     `json:"base"`
	Snap     map[string]snapped `json:"snap,omitempty"`
}

type journalEntry struct {
	Rel   string        `json:"rel"`
	Place control.Place `json:"place"`
	Type  fs.FileMode   `json:"type"`
	Dev   uint64        `json:"dev"`
	Ino   uint64        `json:"ino"`
	Born  int64         `json:"born,omitempty"`
	// ParentDev and ParentIno name the directory that held it.
	ParentDev uint64 `json:"pdev"`
	ParentIno uint64 `json:"pino"`
}

// journalPrefix names the journals of one workspace (one per process).
func journalPrefix(workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return hex.EncodeToString(sum[:8]) + "-"
}

func writeJournal(dir string, g *Guard, workspace string) (*journal, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("sandbox journal: %w", err)
	}
	name := journalPrefix(workspace) + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(journalSeq.Add(1), 10) + ".json"
	j := &journal{path: filepath.Join(dir, name), workspace: workspace, stop: make(chan struct{}), done: make(chan struct{})}
	liveJournals.Store(name, struct{}{})
	if err := j.write(g); err != nil {
		liveJournals.Delete(name)
		return nil, err
	}
	go j.beat()
	return j, nil
}

func (j *journal) write(g *Guard) error {
	f := journalFile{Workspace: j.workspace, PID: os.Getpid(), ProcStart: procStart(os.Getpid()), Level: g.level.String()}
	for _, r := range g.roots {
		jr := journalRoot{Path: r.path, Place: r.place, Patterns: r.patterns, Snap: r.snap}
		for _, rel := range sortedKeys(r.base) {
			b := r.base[rel]
			jr.Base = append(jr.Base, journalEntry{Rel: rel, Place: b.place, Type: b.typ, Dev: b.dev, Ino: b.ino, Born: b.born,
				ParentDev: b.parent.dev, ParentIno: b.parent.ino})
		}
		f.Roots = append(f.Roots, jr)
	}
	b, err := json.Marshal(f)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	tmp := j.path + ".tmp"
	err = os.WriteFile(tmp, b, 0o600)
	if errors.Is(err, fs.ErrNotExist) { // another coder removed the directory as it left
		if err = os.MkdirAll(filepath.Dir(tmp), 0o700); err == nil {
			err = os.WriteFile(tmp, b, 0o600)
		}
	}
	if err != nil {
		return fmt.Errorf("sandbox journal: %w", err)
	}
	return os.Rename(tmp, j.path)
}

// update rewrites the journal after the baseline changed (Accept).
func (j *journal) update(g *Guard) error {
	if j == nil {
		return nil
	}
	return j.write(g)
}

func (j *journal) beat() {
	defer close(j.done)
	t := time.NewTicker(heartbeat)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case now := <-t.C:
			j.mu.Lock()
			_ = os.Chtimes(j.path, now, now)
			j.mu.Unlock()
		}
	}
}

// remove ends the journal: the guard closed in order.
func (j *journal) remove() {
	if j == nil {
		return
	}
	close(j.stop)
	<-j.done
	_ = os.Remove(j.path)
	// Known as live until gone, so no other session recovers it meanwhile.
	liveJournals.Delete(filepath.Base(j.path))
	_ = os.Remove(filepath.Dir(j.path)) // when it was the last: nothing left behind
}

// journalUsable reports whether dir is out of the commands' reach.
func (p Profile) journalUsable(dir string) bool {
	r := resolved(dir)
	for _, w := range append(p.writable(), p.Workspace) {
		if paths.Within(resolved(w), r) {
			return false
		}
	}
	return true
}

// RecoverJournals restores what sandboxed processes of a coder that died
// in p's workspace left (their journals in dir), and returns one line per
// change and what could not be checked. Journals of a coder still running
// are left alone.
func RecoverJournals(dir string, p Profile) ([]string, error) {
	workspace := p.Workspace
	if !p.journalUsable(dir) {
		return nil, ErrJournalWritable
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var changes []string
	var errs []error
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), journalPrefix(workspace)) || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		c, err := recoverJournal(filepath.Join(dir, e.Name()), workspace)
		changes = append(changes, c...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return changes, errors.Join(errs...)
}

func recoverJournal(p, workspace string) ([]string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	var f journalFile
	if err := json.Unmarshal(b, &f); err != nil || f.Workspace != workspace {
		_ = os.Remove(p)
		return nil, fmt.Errorf("sandbox journal %s is unreadable; removed", p)
	}
	if f.PID == os.Getpid() {
		if _, live := liveJournals.Load(filepath.Base(p)); live {
			return nil, nil // another session of this process keeps it
		}
	} else if procStart(f.PID) == f.ProcStart && processAlive(f.PID) {
		return nil, nil // its coder still runs
	}
	level, _ := ParseLevel(f.Level)
	g := &Guard{level: level, until: fi.ModTime().Add(beatsMargin)}
	defer g.Close()
	for _, jr := range f.Roots {
		r, err := openGuardRoot(jr.Path, jr.Place, jr.Patterns)
		if err != nil {
			_ = os.Remove(p)
			return nil, fmt.Errorf("cannot check the control files a coder that ended left in %s: %w", jr.Path, err)
		}
		r.known, r.base, r.snap = map[fileID]int64{}, map[string]found{}, jr.Snap
		if r.snap == nil {
			r.snap = map[string]snapped{}
		}
		for _, e := range jr.Base {
			fe := found{rel: e.Rel, place: e.Place, typ: e.Type, dev: e.Dev, ino: e.Ino, born: e.Born,
				parent: fileID{e.ParentDev, e.ParentIno}}
			r.known[fe.id()], r.base[e.Rel] = fe.born, fe
		}
		g.roots = append(g.roots, r)
	}
	changes, err := g.Restore()
	_ = os.Remove(p)
	return changes, err
}
