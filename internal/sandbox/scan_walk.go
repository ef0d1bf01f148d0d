//go:build unix

package sandbox

import (
	"time"

	"golang.org/x/sys/unix"
)

// walker is one pass of a scan over one root.
type walker struct {
	s   *scanner
	n   *notifier
	t   *tree
	now time.Time
	// trust: a clean state (watched, no event since) is reused without a
	// system call. Off on a second pass, after a clean state proved wrong.
	trust   bool
	stale   bool // a clean state proved wrong: pass again without trust
	changed bool // a directory was read: states may be left unreached
}

// clean reports whether ds is known unchanged without looking.
func (w *walker) clean(ds *dirState) bool {
	return w.trust && w.n != nil && ds.w.Unchanged(ds.events)
}

// dirHandle is a directory reached in a walk, opened (O_PATH) only when
// something below it must be looked at.
type dirHandle struct {
	parent   *dirHandle // nil: fd is the caller's
	name     string
	fd       int // -1 until opened
	failed   bool
	dev, ino uint64 // its identity in the state it was reached by
}

// open opens h, then its parents as needed, each checked against the
// identity its state gave.
func (h *dirHandle) open(w *walker) (int, bool) {
	if h.fd >= 0 || h.failed {
		return h.fd, !h.failed
	}
	h.failed = true
	pfd, ok := h.parent.open(w)
	if !ok {
		return -1, false
	}
	fd, err := unix.Openat(pfd, h.name, oPath|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		w.stale = true
		return -1, false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || uint64(st.Dev) != h.dev || uint64(st.Ino) != h.ino {
		unix.Close(fd)
		w.stale = true
		return -1, false
	}
	h.fd, h.failed = fd, false
	return fd, true
}

func (h *dirHandle) close() {
	if h.parent != nil && h.fd >= 0 {
		unix.Close(h.fd)
		h.fd = -1
	}
}

// enter scans the directory open as fd (the root, or a git directory a
// pointer names), whose fstat is st.
func (w *walker) enter(fd int, key dirKey, st *unix.Stat_t) {
	ds := w.s.dirs[key]
	if ds != nil && ds.gen == w.s.gen {
		return // seen in this scan already
	}
	trusted := ds != nil && w.clean(ds) && ds.stat == keyOf(st)
	if !trusted {
		if ds = w.check(fd, false, key, ds, uint64(st.Dev)); ds == nil {
			w.s.forget(key)
			return
		}
	}
	w.visit(&dirHandle{fd: fd, dev: ds.stat.dev, ino: ds.stat.ino}, key, ds, trusted)
}

// visit collects the directory h, whose state ds is current, and walks
// what is below it. trusted: ds was clean before this scan and is this
// directory's, so its entries still name the directories its
// sub-directories' states were checked against; not so for a state just
// read or checked, whose sub-directories are checked in turn.
func (w *walker) visit(h *dirHandle, key dirKey, ds *dirState, trusted bool) {
	ds.gen = w.s.gen
	w.t.dirs++
	w.t.collect(ds)
	for i := range ds.subdirs {
		sub := &ds.subdirs[i]
		ckey := dirKey{sub.rel, sub.place}
		cds := sub.state
		if cds == nil || cds.gone {
			cds = w.s.dirs[ckey]
		}
		if cds != nil && cds.gen == w.s.gen {
			continue // reached another way in this scan (a pointer's target)
		}
		ch := &dirHandle{parent: h, name: sub.name, fd: -1}
		cds, ctrusted := w.child(ch, ckey, cds, trusted)
		sub.state = cds
		if cds != nil {
			ch.dev, ch.ino = cds.stat.dev, cds.stat.ino
			w.visit(ch, ckey, cds, ctrusted)
		} else {
			w.s.forget(ckey) // not a directory there now: its state must not outlive it
		}
		ch.close()
	}
}

// child is the current state of the sub-directory ch (cached as ds) of a directory
// whose entries are unchanged if parentClean, and whether it is trusted
// (see visit); nil if it is no longer a directory there (gone, or a
// symlink now) or cannot be opened.
//   - Clean in a clean parent: reused, no system call: a change to the
//     parent's entries would have dirtied it, one to the child's it.
//   - Clean in a parent that changed: its name may now be another
//     directory's, so its identity is checked.
//   - Dirty but still watched, or unwatched for good: its identity and
//     change time are checked (the watch pins its inode, so the same
//     identity is the watched directory, which stays watched).
//   - Otherwise: opened, watched, checked, and read if it changed.
func (w *walker) child(ch *dirHandle, key dirKey, ds *dirState, parentClean bool) (*dirState, bool) {
	clean := ds != nil && w.clean(ds)
	if parentClean && clean {
		return ds, true
	}
	pfd, ok := ch.parent.open(w)
	if !ok {
		return nil, false
	}
	if ds != nil && (clean || ds.settled && (ds.w.Alive() || ds.w == nil || !w.n.Room())) {
		w.t.checks++
		var st unix.Stat_t
		if unix.Fstatat(pfd, ch.name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return nil, false // gone or replaced by a symlink: nothing below it to see
		}
		if ds.stat == keyOf(&st) {
			if !clean && ds.w.Alive() {
				// Unchanged when checked, watched since before: clean
				// from here (events counted after the drain show next
				// time). Its sub-directories are checked now all the same.
				ds.events = ds.w.Count()
			}
			return ds, clean
		}
	}
	// Opened to be read if it is likely to be: never seen, or not
	// provably unchanged.
	flags, readable := oPath, false
	if ds == nil || !ds.settled {
		flags, readable = unix.O_RDONLY, true
	}
	fd, err := unix.Openat(pfd, ch.name, flags|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil && readable && err == unix.EACCES {
		readable = false
		fd, err = unix.Openat(pfd, ch.name, oPath|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return nil, false
	}
	ch.fd = fd
	return w.check(fd, readable, key, ds, ch.parent.dev), false
}

// check brings the state of the directory open as fd up to date: a watch
// first, then its fstat, so that any change after the check is an event;
// the state kept if its change time proves it unchanged, else read. dev
// is the file system it is thought to be on. Nil if fd is no directory.
func (w *walker) check(fd int, readable bool, key dirKey, ds *dirState, dev uint64) *dirState {
	var old *dirWatch
	if ds != nil {
		old = ds.w
	}
	wt, events := w.n.WatchFD(fd, old, dev)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		w.n.Release(wt)
		return nil
	}
	wt = w.n.Confirm(wt, uint64(st.Dev), fd)
	if ds != nil && ds.settled && ds.stat == keyOf(&st) {
		w.t.checks++
		w.n.Release(ds.w)
		ds.w, ds.events = wt, events
		return ds
	}
	w.t.reads++
	w.changed = true
	nds, ok := w.s.read(fd, readable, key.rel, key.place, &st)
	if !ok {
		// Not read whole: nothing proves it unchanged next time.
		w.n.Release(wt)
		wt = nil
	}
	nds.w, nds.events = wt, events
	nds.settled = ok && w.now.Sub(time.Unix(0, st.Ctim.Nano())) > cacheSlop
	return w.s.store(key, nds)
}
