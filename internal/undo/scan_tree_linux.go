package undo

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dirState is a directory as the last scan that read it found it: what it
// holds that the rules keep, and the watch that says whether it changed
// since (notify_linux.go).
type dirState struct {
	w        *dirWatch
	events   uint64 // w's count when the listing was read: clean while it stays so
	dev, ino uint64
	files    []fileEntry // kept files (and links, pipes…)
	linked   []int       // those with more than one link: lstat'ed at every scan
	subs     []subdir    // kept sub-directories
	ignore   fstat       // its .gitignore as listed (zero: none)
	gen      uint64      // the last scan that reached it
	stale    bool        // known changed without an event: read at the next scan
	cached   bool        // every file's content was cached, not racy, when last found
}

// fileEntry is a file as its directory's listing found it.
type fileEntry struct {
	name, rel string
	st        fstat
	gone      bool // not there when lstat'ed again
}

// subdir is a sub-directory as its parent's listing found it.
type subdir struct {
	rel      string
	dev, ino uint64
	mode     fs.FileMode
}

// trees is the Scanner's cached tree.
type trees struct {
	dirs  map[string]*dirState // by path relative to the root ("" for it)
	rules *ignoreRules         // the rules its states were read with
	gen   uint64               // scans so far
}

// treeWalk is one scan of the cached tree.
type treeWalk struct {
	s     *Scanner
	t     *trees
	n     *notifier
	ctx   context.Context
	rules *ignoreRules
	trust bool // reuse clean states
	first bool // the tree was empty: no state can be stale against the rules
	// newLink: a file with another link appeared. The other link, if in
	// the tree, may be a file of a clean directory, written through this
	// one: the scan is made again without trust, which finds it.
	newLink bool

	found func(rel string, st fstat) bool
	files map[string]fstat
	dirs  map[string]fs.FileMode
	reads int // directories read (listed) in this scan, for tests
	err   error
}

// treeScan scans the workspace through the cached tree; ok is false when
// inotify is not in use, and the caller walks instead.
// found, if not nil (Before), is called for each file as it is found,
// but for those of a clean directory whose content was all cached, and
// not racy, when last found: it is still (reader).
func (s *Scanner) treeScan(ctx context.Context, rules *ignoreRules, found func(rel string, st fstat) bool) (files map[string]fstat, dirs map[string]fs.FileMode, ok bool, err error) {
	if !s.notify {
		return nil, nil, false, nil
	}
	n := processNotifier()
	if n == nil {
		return nil, nil, false, nil
	}
	n.Lock()
	defer n.Unlock()
	n.Drain()
	t := &s.trees
	if t.dirs == nil {
		t.dirs = map[string]*dirState{}
	}
	if rules != t.rules {
		t.drop(n) // read with other rules
		t.rules = rules
	}
	if rules != s.rules {
		s.rulesStale = true // a Mark older than the rules: new ones at the next Before
	}
	// While a process may write outside calls (a background task), a
	// write through a mapping it holds makes no event until it ends: the
	// workspace is walked, and the tree kept for when it has (the close
	// at its exit is an event). On a root whose file system's events are
	// incomplete the walk is all there is.
	if s.busy {
		s.rulesStale = true // no ignore file is seen changing while walked
		return nil, nil, false, nil
	}
	if !n.PathWatchable(s.root) {
		t.drop(n)
		s.rulesStale = true
		return nil, nil, false, nil
	}
	trust := true
	for {
		w := &treeWalk{s: s, t: t, n: n, ctx: ctx, rules: rules, trust: trust, first: len(t.dirs) == 0, found: found,
			files: make(map[string]fstat, s.lastFiles), dirs: make(map[string]fs.FileMode, s.lastDirs)}
		t.gen++
		w.root()
		s.lastReads += w.reads
		if w.err != nil {
			t.drop(n) // a partial tree would hold states no scan reached
			return nil, nil, true, w.err
		}
		for rel, ds := range t.dirs {
			if ds.gen != t.gen { // no longer reached: gone, moved, or no longer a directory
				s.forgetState(n, rel, ds)
			}
		}
		if w.newLink && trust {
			trust = false
			continue
		}
		s.lastFiles, s.lastDirs = len(w.files), len(w.dirs)
		return w.files, w.dirs, true, nil
	}
}

// drop forgets every state and releases its watch.
func (t *trees) drop(n *notifier) {
	for rel, ds := range t.dirs {
		n.Release(ds.w)
		delete(t.dirs, rel)
	}
}

func (s *Scanner) forgetState(n *notifier, rel string, ds *dirState) {
	if ds.ignore != (fstat{}) {
		s.rulesStale = true // its .gitignore's patterns are cached by path
	}
	n.Release(ds.w)
	delete(s.trees.dirs, rel)
}

// root scans from the workspace root, opened by path at every scan.
func (w *treeWalk) root() {
	fd, err := unix.Open(w.s.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		w.err = &fs.PathError{Op: "open", Path: w.s.root, Err: err}
		return
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		w.err = &fs.PathError{Op: "fstat", Path: w.s.root, Err: err}
		return
	}
	unix.Close(fd)
	w.dir(subdir{dev: uint64(st.Dev), ino: uint64(st.Ino)}, uint64(st.Dev))
}

// dir scans the directory rel, which its parent's listing showed as sub
// on the file system parentDev: its state reused if it is clean and still
// that directory, else read again.
func (w *treeWalk) dir(sub subdir, parentDev uint64) {
	rel := sub.rel
	if w.err != nil {
		return
	}
	if err := w.ctx.Err(); err != nil {
		w.err = err
		return
	}
	ds := w.t.dirs[rel]
	if ds == nil || !w.trust || ds.stale || ds.dev != sub.dev || ds.ino != sub.ino || !ds.w.Unchanged(ds.events) {
		if ds = w.read(rel, ds, parentDev); ds == nil {
			return // unreadable or gone: passed over, as by the walk
		}
	} else {
		w.relink(rel, ds)
	}
	ds.gen = w.t.gen
	// A clean directory's files are as they were when found, and so is
	// the cache's copy of them (After replaces only what changed, which
	// dirtied the directory); those with other links may have changed.
	find := w.found != nil && !(ds.cached && len(ds.linked) == 0)
	if find {
		ds.cached = true
	}
	for _, f := range ds.files {
		if f.gone {
			continue
		}
		if len(w.files) >= w.s.opts.MaxFiles {
			w.err = ErrTooManyFiles
			return
		}
		w.files[f.rel] = f.st
		if find && !w.found(f.rel, f.st) {
			ds.cached = false
		}
	}
	for _, c := range ds.subs {
		w.dirs[c.rel] = c.mode
		w.dir(c, ds.dev)
	}
}

// relink lstats the files of a clean directory that have other links: one
// may have been written through a link in a directory nothing watches.
func (w *treeWalk) relink(rel string, ds *dirState) {
	for _, i := range ds.linked {
		f := &ds.files[i]
		var st unix.Stat_t
		if unix.Lstat(filepath.Join(w.s.root, f.rel), &st) != nil {
			// Gone without an event here: the next scan reads it again.
			ds.stale, f.gone = true, true
			continue
		}
		f.st = fstatOf(&st)
	}
}

// read lists the directory rel and lstats its entries, with a watch added
// first, through the descriptor it is read from, so that any change after
// the read is an event. old is its previous state, replaced.
func (w *treeWalk) read(rel string, old *dirState, parentDev uint64) *dirState {
	abs := filepath.Join(w.s.root, rel)
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if old != nil {
			w.s.forgetState(w.n, rel, old)
		}
		return nil
	}
	w.reads++
	var oldWatch *dirWatch
	if old != nil {
		oldWatch = old.w
	}
	wt, events := w.n.WatchFD(fd, oldWatch, parentDev)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		w.n.Release(wt)
		unix.Close(fd)
		return nil
	}
	wt = w.n.Confirm(wt, uint64(st.Dev), fd)
	f := os.NewFile(uintptr(fd), abs)
	names, err := f.Readdirnames(-1)
	ds := &dirState{w: wt, events: events, dev: uint64(st.Dev), ino: uint64(st.Ino),
		files: make([]fileEntry, 0, len(names))}
	if err != nil {
		// Not read whole: nothing proves it unchanged next time.
		w.n.Release(wt)
		ds.w = nil
	}
	for _, name := range names {
		w.entry(fd, rel, name, ds)
	}
	f.Close()
	for _, i := range ds.linked {
		if !w.first && (old == nil || !old.hasLinked(ds.files[i])) {
			w.newLink = true
		}
	}
	if old != nil {
		if old.ignore != ds.ignore {
			w.s.rulesStale = true
		}
		w.n.Release(old.w)
	} else if !w.first && ds.ignore != (fstat{}) {
		w.s.rulesStale = true // a new directory's .gitignore: the rules may hold another's
	}
	w.t.dirs[rel] = ds
	return ds
}

// entry lstats one entry of the directory open as fd and keeps it in ds
// if the rules do.
func (w *treeWalk) entry(fd int, rel, name string, ds *dirState) {
	if name == ".git" {
		return
	}
	var st unix.Stat_t
	if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return // gone since the directory was read
	}
	isDir := st.Mode&unix.S_IFMT == unix.S_IFDIR
	if name == ".gitignore" {
		ds.ignore = fstatOf(&st)
	}
	crel := filepath.Join(rel, name)
	if w.rules.skip(filepath.Join(w.s.root, crel), isDir) {
		return
	}
	if isDir {
		ds.subs = append(ds.subs, subdir{rel: crel, dev: uint64(st.Dev), ino: uint64(st.Ino), mode: fileMode(st.Mode) & (keptMode | fs.ModeType)})
		return
	}
	if st.Nlink > 1 {
		ds.linked = append(ds.linked, len(ds.files))
	}
	ds.files = append(ds.files, fileEntry{name: name, rel: crel, st: fstatOf(&st)})
}

// fstatOf is statOf from a raw stat, equal to what os.Lstat would give.
func fstatOf(st *unix.Stat_t) fstat {
	return fstat{mtime: st.Mtim.Nano(), size: st.Size, mode: fileMode(st.Mode) & (keptMode | fs.ModeType), ino: st.Ino, ctime: st.Ctim.Nano()}
}

// fileMode converts a raw mode as package os does.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// hasLinked reports whether f, by its name and inode, was a file with
// other links in ds already.
func (ds *dirState) hasLinked(f fileEntry) bool {
	for _, i := range ds.linked {
		if ds.files[i].name == f.name && ds.files[i].st.ino == f.st.ino {
			return true
		}
	}
	return false
}
