//go:build unix

package sandbox

import (
	"bytes"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/sys/unix"

	"github.com/coder-agent/coder/internal/control"
)

// A scan finds, in the whole tree below a root, the control entries
// (control.Step: .git, .coder, .claude, .mcp.json at any depth, and git's
// config, hooks and pointers in every git directory) and the files the
// workspace's deny_read patterns name. It walks by file descriptor, one
// name at a time and never through a symlink, so a command that swaps a
// directory for a symlink meanwhile cannot send it outside the root.
//
// Each call scans twice (before, to protect; after, to find what is new),
// so directories are cached. On Linux inotify tells which changed
// (notify_linux.go): a warm scan costs what changed. Elsewhere, and where
// no watch can be had, a directory is cached by identity and change time:
// unchanged, it costs one fstatat, not a read. Change time rather than
// mtime, which its owner may set back; a directory changed within
// cacheSlop of its read is read again next time, as a change in the same
// clock tick would not move its change time.

// found is one entry a scan keeps.
type found struct {
	rel      string        // slash-separated, relative to the scan's root
	place    control.Place // the place of the directory holding it
	typ      fs.FileMode   // type bits: fs.ModeDir, fs.ModeSymlink, 0 for a regular file, …
	dev, ino uint64
	// born is the inode's birth time (0: unknown), so an inode number
	// freed during a call and given to a new file is not taken for the
	// old one.
	born   int64
	parent fileID // the directory holding it
}

func (f found) id() fileID { return fileID{f.dev, f.ino} }

type fileID struct{ dev, ino uint64 }

// tree is what one scan of one root found.
type tree struct {
	root    string
	control []found // sorted by rel
	secrets []found // deny_read pattern matches, sorted by rel
	dirs    int     // directories looked at
	reads   int     // directories read (the others came from the cache)
	checks  int     // cached directories checked by a stat (the others by their watch)
}

// cacheSlop: a directory whose change time is this close to the time it
// was read cannot be proved unchanged by its change time (coarse kernel
// timestamps, small clock steps).
const cacheSlop = time.Second

// dirState is a directory as last read: its identity and change time, and
// what in it the scan needs.
type dirState struct {
	stat statKey
	// settled: read more than cacheSlop after its last change, so an
	// unchanged change time proves it unchanged since.
	settled bool
	w       *dirWatch // its inotify watch, added before the read; nil: none could be, not tried again until it is read again
	events  uint64    // w's count of events at that read: clean while it stays so
	gen     uint64    // the scan that last visited it
	gone    bool      // forgotten: no longer the state of its directory
	subdirs []subdir
	hits    []found
}

type subdir struct {
	name, rel string
	place     control.Place
	state     *dirState // its state when last looked up (saves the lookup), unless gone
}

type statKey struct {
	dev, ino, nlink uint64
	ctime, mtime    int64
}

func keyOf(st *unix.Stat_t) statKey {
	return statKey{dev: uint64(st.Dev), ino: uint64(st.Ino), nlink: uint64(st.Nlink),
		ctime: st.Ctim.Nano(), mtime: st.Mtim.Nano()}
}

// scanner keeps one root's directory cache.
type scanner struct {
	mu       sync.Mutex
	root     string
	patterns []pattern
	dirs     map[dirKey]*dirState
	gen      uint64 // scans made
}

type dirKey struct {
	rel   string
	place control.Place
}

var (
	scannersMu sync.Mutex
	scanners   = map[string]*scanner{}
)

// scannerFor is the process's scanner for root with these deny_read
// patterns: calls in one workspace share the cache.
func scannerFor(root string, start control.Place, patterns []string) *scanner {
	key := root + "\x00" + string(rune('0'+start)) + "\x00" + strings.Join(patterns, "\x00")
	scannersMu.Lock()
	defer scannersMu.Unlock()
	s := scanners[key]
	if s == nil {
		s = &scanner{root: root, patterns: compilePatterns(patterns), dirs: map[dirKey]*dirState{}}
		scanners[key] = s
	}
	return s
}

// scanRoot scans root, which is a directory at place start (control.Tree
// for a workspace, control.GitDir for a git directory outside it).
func scanRoot(root string, start control.Place, patterns []string) (tree, error) {
	s := scannerFor(root, start, patterns)
	s.mu.Lock()
	defer s.mu.Unlock()
	n := processNotifier()
	n.Lock()
	defer n.Unlock()
	n.Drain() // every change made before now is queued: its directory is dirty
	fd, err := unix.Open(root, oPath|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return tree{root: root}, &fs.PathError{Op: "scan", Path: root, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return tree{root: root}, &fs.PathError{Op: "scan", Path: root, Err: err}
	}
	var t tree
	for _, trust := range []bool{true, false} {
		t = tree{root: root}
		s.gen++
		w := &walker{s: s, n: n, t: &t, now: time.Now(), trust: trust}
		w.enter(fd, dirKey{"", start}, &st)
		s.followPointers(w, fd)
		if !w.stale {
			if w.changed {
				s.prune()
			}
			break
		}
		// A directory was not what its clean state said (changed while
		// this scan ran): again, checking every one.
	}
	slices.SortFunc(t.control, func(a, b found) int { return strings.Compare(a.rel, b.rel) })
	slices.SortFunc(t.secrets, func(a, b found) int { return strings.Compare(a.rel, b.rel) })
	t.control = slices.CompactFunc(t.control, func(a, b found) bool { return a.rel == b.rel })
	return t, nil
}

// prune forgets the directories the last scan did not reach (removed,
// moved, no longer readable), and their watches.
func (s *scanner) prune() {
	n := processNotifier()
	for k, ds := range s.dirs {
		if ds.gen != s.gen {
			n.Release(ds.w)
			ds.gone = true
			delete(s.dirs, k)
		}
	}
}

// store makes ds the state of key, releasing the watch of the one before,
// whose place it takes (so that pointers to it stay true): that is
// returned.
func (s *scanner) store(key dirKey, ds *dirState) *dirState {
	old := s.dirs[key]
	if old == nil {
		s.dirs[key] = ds
		return ds
	}
	processNotifier().Release(old.w)
	*old = *ds
	return old
}

// forget drops the state of key, and its watch.
func (s *scanner) forget(key dirKey) {
	if old := s.dirs[key]; old != nil {
		processNotifier().Release(old.w)
		old.gone = true
		delete(s.dirs, key)
	}
}

// collect adds what a directory holds to the tree.
func (t *tree) collect(ds *dirState) {
	for _, h := range ds.hits {
		if control.IsEntry(h.place, path.Base(h.rel)) {
			t.control = append(t.control, h)
		} else {
			t.secrets = append(t.secrets, h)
		}
	}
}

// read lists the directory open as fd (O_PATH is enough unless
// readable): the control entries and pattern matches in it, and the
// sub-directories to visit. ok is false when it could not be read whole;
// unreadable, it holds nothing.
func (s *scanner) read(fd int, readable bool, rel string, place control.Place, st *unix.Stat_t) (ds *dirState, ok bool) {
	ds = &dirState{stat: keyOf(st)}
	rfd := fd
	if !readable {
		var err error
		if rfd, err = unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err != nil {
			return ds, false // unreadable: nothing in it to see
		}
		defer unix.Close(rfd)
	}
	entries, err := listDir(rfd)
	for _, e := range entries {
		name := e.name
		next := control.Step(place, name)
		entryRel := joinRel(rel, name)
		secret := place == control.Tree && next == control.Tree && s.matches(entryRel)
		if control.IsEntry(place, name) || secret {
			if h, ok := statAt(rfd, name, entryRel, place); ok {
				h.parent = fileID{uint64(st.Dev), uint64(st.Ino)}
				ds.hits = append(ds.hits, h)
			}
		}
		if !e.dir {
			continue
		}
		switch next {
		case control.Tree, control.GitDir, control.GitModules, control.GitWorktrees:
			if !secret {
				ds.subdirs = append(ds.subdirs, subdir{name: name, rel: entryRel, place: next})
			}
		}
	}
	return ds, err == nil
}

// followPointers scans the git directories that ".git" files inside the
// root point to (a submodule's, usually under .git/modules and scanned
// already), when they lie inside the root too.
func (s *scanner) followPointers(w *walker, rootfd int) {
	for _, c := range slices.Clone(w.t.control) {
		if path.Base(c.rel) != control.GitName || c.typ != 0 {
			continue
		}
		b, err := readBeneath(rootfd, c.rel, 4<<10)
		if err != nil {
			continue
		}
		target, ok := gitdirTarget(b)
		if !ok {
			continue
		}
		rel := path.Clean(path.Join(path.Dir(c.rel), filepath.ToSlash(target)))
		if filepath.IsAbs(target) {
			r, err := filepath.Rel(s.root, target)
			if err != nil {
				continue
			}
			rel = filepath.ToSlash(r)
		}
		if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			continue // outside the root: not the command's to write
		}
		fd, err := openBeneath(rootfd, rel, oPath|unix.O_DIRECTORY)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil {
			w.enter(fd, dirKey{rel, control.GitDir}, &st)
		}
		unix.Close(fd)
	}
}

// gitdirTarget reads a ".git" file: "gitdir: PATH".
func gitdirTarget(b []byte) (string, bool) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("gitdir:"))
	target := string(bytes.TrimSpace(rest))
	return target, ok && target != ""
}

// pattern is one deny_read workspace pattern, made quick to test on every
// name of the tree: most are a plain name, a prefix or a suffix.
type pattern struct {
	neg      bool
	whole    bool   // has a slash: matched against the path from the root
	glob     string // as written, without "!" and a leading "/"
	exact    string // no wildcard at all
	prefix   string // "id_rsa*"
	suffix   string // "*.pem"
	wildcard bool   // none of the quick forms: path.Match or doublestar
}

func compilePatterns(list []string) []pattern {
	out := make([]pattern, 0, len(list))
	for _, p := range list {
		c := pattern{neg: strings.HasPrefix(p, "!")}
		c.whole = strings.Contains(p, "/")
		c.glob = strings.TrimPrefix(strings.TrimPrefix(p, "!"), "/")
		meta := strings.IndexAny(c.glob, `*?[\`)
		switch {
		case c.whole:
			c.wildcard = true
		case meta < 0:
			c.exact = c.glob
		case meta == len(c.glob)-1 && c.glob[meta] == '*':
			c.prefix = c.glob[:meta]
		case meta == 0 && c.glob[0] == '*' && !strings.ContainsAny(c.glob[1:], `*?[\`):
			c.suffix = c.glob[1:]
		default:
			c.wildcard = true
		}
		out = append(out, c)
	}
	return out
}

func (c pattern) match(rel, base string) bool {
	switch {
	case c.whole:
		ok, _ := doublestar.Match(c.glob, rel)
		return ok
	case c.wildcard:
		ok, _ := path.Match(c.glob, base)
		return ok
	case c.exact != "":
		return base == c.exact
	case c.suffix != "":
		return strings.HasSuffix(base, c.suffix)
	}
	return strings.HasPrefix(base, c.prefix)
}

// matches reports whether rel is named by the deny_read patterns: a
// pattern without a slash matches a name at any depth, one with a slash
// the path from the root; "!" before a pattern excludes what it matches,
// and the last pattern that matches decides.
func (s *scanner) matches(rel string) bool {
	hit := false
	base := path.Base(rel)
	for _, p := range s.patterns {
		if p.match(rel, base) {
			hit = !p.neg
		}
	}
	return hit
}

// statAt is the entry name of the directory fd as a found entry.
func statAt(fd int, name, rel string, place control.Place) (found, bool) {
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return found{}, false
	}
	return found{rel: rel, place: place, typ: modeType(uint32(st.Mode)), dev: uint64(st.Dev), ino: uint64(st.Ino),
		born: bornAt(fd, name)}, true
}

func modeType(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFREG:
		return 0
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	}
	return fs.ModeDevice
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
