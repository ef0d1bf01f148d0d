package undo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/charlievieth/fastwalk"
)

// ScannerOptions bounds what a Scanner keeps in memory. Zero fields take the
// defaults.
type ScannerOptions struct {
	MaxFileSize int64 // larger files are not cached (default 1 MiB)
	MaxTotal    int64 // cache size limit (default 64 MiB)
	MaxFiles    int   // a workspace with more files is not scanned (default 100,000)
	// Busy reports whether a process may be running outside bash calls
	// (a background task): one could write through a shared mapping
	// without an inotify event, so the workspace is walked then.
	Busy func() bool
}

// ErrTooManyFiles is returned by Before for a workspace above MaxFiles: the
// bash call then runs without capture.
var ErrTooManyFiles = errors.New("undo: too many files in the workspace to capture bash changes")

// racyWindow covers file-system timestamp granularity (1 s on HFS+, a
// scheduler tick on ext4): a file whose mtime is this close to the moment it
// was looked at may change again without its mtime changing, so it is
// compared by content instead of being trusted by its stat.
const racyWindow = 2 * time.Second

// Scanner finds the files a bash call changed in a workspace: the tracked and
// untracked files that ignore rules do not exclude. It caches their contents
// between calls, keyed by stat, so prior content is at hand for whatever a
// command changes, and only files whose stat changed are read again. One
// Scanner serves a session; its methods are safe for concurrent use but run
// one at a time.
type Scanner struct {
	root string
	opts ScannerOptions

	mu                  sync.Mutex // one Before or After at a time
	lastFiles, lastDirs int        // sizes of the last walk, to size the next
	lastReads           int        // directories read through the tree so far, for tests

	// With inotify (notify), the tree of directory states a warm scan
	// reuses (scan_tree_linux.go), and the rules it was read with: kept
	// while no ignore file changes.
	notify     bool
	busy       bool // Busy's word at the start of this Before or After
	trees      trees
	rules      *ignoreRules
	rulesKey   string
	rulesStale bool // an ignore file in the tree changed: new rules at the next Before

	cacheMu sync.Mutex // guards cache and total, filled by parallel walkers
	cache   map[string]*cached
	total   int64 // bytes held in cache
}

// cached is the content of a file (a symbolic link's target) as it was at st.
type cached struct {
	st     fstat
	data   []byte
	readAt time.Time
}

// fstat is what tells a file changed without reading it. The change time
// tells a file written and set back to its old mtime, perhaps on a reused
// inode, from the original.
type fstat struct {
	mtime int64
	size  int64
	mode  fs.FileMode
	ino   uint64
	ctime int64
}

// Mark is the workspace as Before saw it.
type Mark struct {
	at     time.Time
	rules  *ignoreRules // reused by After, so a changed .gitignore hides nothing
	files  map[string]fstat
	dirs   map[string]fs.FileMode
	missed map[string]string // files with no cached content, and why
}

// NewScanner returns a Scanner of the workspace root (absolute).
func NewScanner(root string, opts ScannerOptions) *Scanner {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = 1 << 20
	}
	if opts.MaxTotal <= 0 {
		opts.MaxTotal = 64 << 20
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = 100_000
	}
	return &Scanner{root: filepath.Clean(root), opts: opts, cache: map[string]*cached{}, notify: !notifyOff}
}

// Before records the workspace before a bash call and makes sure the cache
// holds the current content of every file it can: the first call reads them
// all, later ones only those whose stat changed since they were cached.
func (s *Scanner) Before(ctx context.Context) (*Mark, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &Mark{at: time.Now(), missed: map[string]string{}}
	var missedMu sync.Mutex
	refresh := func(rel, abs string, st fstat) {
		if why := s.refresh(rel, abs, st); why != "" {
			missedMu.Lock()
			m.missed[rel] = why
			missedMu.Unlock()
		}
	}
	if s.busy = s.opts.Busy != nil && s.opts.Busy(); s.busy {
		s.rulesStale = true // walked: the rules are read again, as without inotify
	}
	m.rules = s.currentRules()
	files, dirs, err := s.walk(ctx, m.rules, refresh)
	if err == nil && s.rulesStale {
		// An ignore file changed since the last scan: scan again with
		// rules read now, as without inotify.
		clear(m.missed)
		m.rules = s.currentRules()
		files, dirs, err = s.walk(ctx, m.rules, refresh)
	}
	if err != nil {
		return nil, err
	}
	m.files, m.dirs = files, dirs
	s.evict(files)
	return m, nil
}

// currentRules are the ignore rules for a Before: read again at each
// scan without inotify; with it, kept while no ignore file changed (those
// in the tree are seen by the scan, those outside by their stat).
func (s *Scanner) currentRules() *ignoreRules {
	if !s.notify {
		return newIgnoreRules(s.root)
	}
	if s.rules != nil && !s.rulesStale && s.rules.key() == s.rulesKey {
		return s.rules
	}
	s.rules, s.rulesStale = newIgnoreRules(s.root), false
	s.rulesKey = s.rules.key()
	return s.rules
}

// walk stats every entry the rules keep and calls fn, if not nil, for each
// file: through the cached tree with inotify, else by a walk of the
// workspace. fn is called from several goroutines, so it must be safe for
// concurrent use; it is called outside the lock guarding the maps, so
// files are read in parallel.
func (s *Scanner) walk(ctx context.Context, rules *ignoreRules, fn func(rel, abs string, st fstat)) (map[string]fstat, map[string]fs.FileMode, error) {
	found, wait := s.reader(fn)
	files, dirs, ok, err := s.treeScan(ctx, rules, found)
	wait()
	if ok {
		if err != nil {
			return nil, nil, fmt.Errorf("undo: scan %s: %w", s.root, err)
		}
		return files, dirs, nil
	}
	w := &walker{s: s, ctx: ctx, rules: rules, fn: fn,
		files: make(map[string]fstat, s.lastFiles), dirs: make(map[string]fs.FileMode, s.lastDirs)}
	if err := fastwalk.Walk(&fastwalk.Config{}, s.root, w.visit); err != nil {
		return nil, nil, fmt.Errorf("undo: scan %s: %w", s.root, err)
	}
	s.lastFiles, s.lastDirs = len(w.files), len(w.dirs)
	return w.files, w.dirs, nil
}

// walker is the state of one walk.
type walker struct {
	s     *Scanner
	ctx   context.Context
	rules *ignoreRules
	fn    func(rel, abs string, st fstat)

	mu    sync.Mutex
	files map[string]fstat
	dirs  map[string]fs.FileMode
	stop  error // why the walk stopped: fastwalk hands it back to visit once more
}

func (w *walker) visit(abs string, d fs.DirEntry, err error) error {
	if err != nil || abs == w.s.root {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.stop // nil: an unreadable directory is passed over
	}
	if err := w.ctx.Err(); err != nil {
		return w.halt(err)
	}
	if w.rules.skip(abs, d.IsDir()) {
		if d.IsDir() {
			return fastwalk.SkipDir
		}
		return nil
	}
	fi, err := d.Info()
	if err != nil {
		return nil // gone since the directory was read
	}
	rel, st := strings.TrimLeft(abs[len(w.s.root):], string(filepath.Separator)), statOf(fi)
	w.mu.Lock()
	if fi.IsDir() {
		w.dirs[rel] = st.mode
		w.mu.Unlock()
		return nil
	}
	if len(w.files) >= w.s.opts.MaxFiles {
		w.mu.Unlock()
		return w.halt(ErrTooManyFiles)
	}
	w.files[rel] = st
	w.mu.Unlock()
	if w.fn != nil {
		w.fn(rel, abs, st)
	}
	return nil
}

func (w *walker) halt(err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stop = err
	return err
}

func statOf(fi fs.FileInfo) fstat {
	ino, ctime := sysStat(fi)
	return fstat{mtime: fi.ModTime().UnixNano(), size: fi.Size(), mode: fi.Mode() & (keptMode | fs.ModeType), ino: ino, ctime: ctime}
}

// After compares the workspace with m and saves, through t, the prior state
// of every file the command created, modified or deleted (and of directories
// it created or deleted). Unchanged files cost a stat; a file whose stat
// changed is read and compared, so a touch is not a change. changed lists
// the paths relative to the root (directories with a trailing slash);
// notCaptured those of them whose prior content was not cached, which undo
// will report instead of restoring. A nil t saves nothing.
func (s *Scanner) After(ctx context.Context, m *Mark, t *Turn) (changed, notCaptured []string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy = s.opts.Busy != nil && s.opts.Busy()
	files, dirs, err := s.walk(ctx, m.rules, nil)
	if err != nil {
		return nil, nil, err
	}
	d := &differ{s: s, m: m, t: t}
	for rel, before := range m.files {
		now, ok := files[rel]
		d.file(rel, &before, ptrIf(now, ok))
	}
	for rel, now := range files {
		if _, ok := m.files[rel]; !ok {
			d.file(rel, nil, &now)
		}
	}
	d.dirs(dirs)
	return d.result()
}

func ptrIf[T any](v T, ok bool) *T {
	if !ok {
		return nil
	}
	return &v
}

// reader calls fn, from as many goroutines as there are processors, for
// each file found whose cached content is not current: the first scan
// reads every file while the walk goes on. found, called from one
// goroutine, reports whether the content was current; wait returns once
// every call to fn has returned.
func (s *Scanner) reader(fn func(rel, abs string, st fstat)) (found func(rel string, st fstat) bool, wait func()) {
	if fn == nil {
		return nil, func() {}
	}
	type item struct {
		rel string
		st  fstat
	}
	work := make(chan item, 256)
	var wg sync.WaitGroup
	sent := map[string]fstat{} // a scan made again finds the same files
	found = func(rel string, st fstat) bool {
		s.cacheMu.Lock()
		c := s.cache[rel] // never changed once cached: replaced
		s.cacheMu.Unlock()
		if c != nil && c.st == st && !racy(st, c.readAt) {
			return true
		}
		if prev, ok := sent[rel]; ok && prev == st {
			return false
		}
		if len(sent) == 0 {
			for range runtime.GOMAXPROCS(0) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for it := range work {
						fn(it.rel, filepath.Join(s.root, it.rel), it.st)
					}
				}()
			}
		}
		sent[rel] = st
		work <- item{rel, st}
		return false
	}
	return found, func() { close(work); wg.Wait() }
}
