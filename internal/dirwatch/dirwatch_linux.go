package dirwatch

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Watch is one inotify watch: a directory's inode.
type Watch struct {
	wd     int32
	events uint64 // events seen for it
	refs   int    // directory states that use it
	dead   bool   // removed by the kernel or by Release: what used it is unwatched
	// unsure: events were lost, its IN_IGNORED perhaps among them, so it
	// is not known to watch still until the kernel gives it again.
	unsure bool
}

// Alive reports whether w still watches its directory.
func (w *Watch) Alive() bool { return w != nil && !w.dead && !w.unsure }

// Count is the number of events seen for w: a state checked now is clean
// while it stays so.
func (w *Watch) Count() uint64 { return w.events }

// Unchanged reports whether no event came for w since since.
func (w *Watch) Unchanged(since uint64) bool {
	return w != nil && !w.dead && w.events == since
}

// Notifier is one inotify instance. Its lock is held by its user for a
// whole scan; its methods other than Lock and Unlock assume it is held.
type Notifier struct {
	mu        sync.Mutex
	fd        int
	mask      uint32
	mounts    int // /proc/self/mountinfo, polled for changes to the mount table
	watches   map[int32]*Watch
	max       int             // watches it may hold
	full      bool            // the kernel refused one for lack of room: none added until one is released
	overflows int             // queue overflows seen
	remounts  int             // changes to the mount table seen
	devs      map[uint64]bool // file systems seen: whether their events are complete
	buf       []byte
	released  bool // ReleaseAll: no watch is added any more
}

// New is an instance watching directories for mask (IN_ONLYDIR is added),
// holding at most max watches; nil when inotify cannot be used, or the
// mount table not polled.
func New(mask uint32, max int) *Notifier {
	mounts, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // mounts would go unseen
	}
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		unix.Close(mounts)
		return nil
	}
	return &Notifier{fd: fd, mask: mask | unix.IN_ONLYDIR, mounts: mounts, watches: map[int32]*Watch{},
		devs: map[uint64]bool{}, max: max, buf: make([]byte, 64<<10)}
}

// Lazy returns the process's instance for mask holding at most budget()
// watches, made at the first call (nil when inotify cannot be used): a
// process that never scans makes none.
func Lazy(mask uint32, budget func() int) func() *Notifier {
	made := sync.OnceValue(func() *Notifier {
		n := New(mask, budget())
		if n != nil {
			instancesMu.Lock()
			instances = append(instances, n)
			instancesMu.Unlock()
		}
		return n
	})
	return func() *Notifier {
		if disabled.Load() {
			return nil
		}
		return made()
	}
}

// instances are those Lazy made, for ReleaseAll.
var (
	instancesMu sync.Mutex
	instances   []*Notifier
)

// ReleaseAll removes every watch of the instances Lazy made and adds none
// after: for a run that has done its last scan (a headless run once its
// turn has ended, a REPL session once the person leaves it), so that the
// kernel destroys them while the run saves and closes, not at its exit
// (see Disable). A scan after it still sees
// every change: a directory whose watch is gone is checked by its change
// time, as one that could not be watched.
func ReleaseAll() {
	instancesMu.Lock()
	defer instancesMu.Unlock()
	for _, n := range instances {
		n.mu.Lock()
		for _, w := range n.watches {
			n.remove(w)
		}
		n.released = true
		n.mu.Unlock()
	}
}

// Budget is the per-user limit on watches (fs.inotify.max_user_watches,
// shared with the person's editor) divided by share, at most maxAbs.
func Budget(share, maxAbs int) int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	limit, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil || limit <= 0 {
		limit = 8192 // the old default: the smallest a kernel is likely to have
	}
	return min(limit/share, maxAbs)
}

// Lock and Unlock do nothing on a nil Notifier.
func (n *Notifier) Lock() {
	if n != nil {
		n.mu.Lock()
	}
}

func (n *Notifier) Unlock() {
	if n != nil {
		n.mu.Unlock()
	}
}

// Drain reads every queued event and dirties the directories they name;
// a change to the mount table dirties them all. The kernel queues an
// event inside the system call that made the change, so every change
// made before Drain is counted.
func (n *Notifier) Drain() {
	if n == nil {
		return
	}
	pfd := []unix.PollFd{{Fd: int32(n.mounts), Events: unix.POLLPRI}}
	if k, err := unix.Poll(pfd, 0); err != nil || k > 0 && pfd[0].Revents != 0 {
		n.remounts++
		n.dirtyAll() // the kernel clears the mark as it reports it
	}
	for {
		k, err := unix.Read(n.fd, n.buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || k <= 0 {
			return // EAGAIN: the queue is empty
		}
		for off := 0; off+unix.SizeofInotifyEvent <= k; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&n.buf[off]))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			n.event(ev.Wd, ev.Mask)
		}
	}
}

// event applies one event to the watch it names.
func (n *Notifier) event(wd int32, mask uint32) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		n.overflow()
		return
	}
	w := n.watches[wd]
	if w == nil {
		return // removed by Release, its IN_IGNORED still queued
	}
	w.events++
	if mask&unix.IN_IGNORED != 0 {
		w.dead = true
		delete(n.watches, wd)
		n.full = false
	}
}

// overflow dirties every directory, and leaves no watch known to be
// alive: events were lost.
func (n *Notifier) overflow() {
	n.overflows++
	for _, w := range n.watches {
		w.unsure = true
	}
	n.dirtyAll()
}

func (n *Notifier) dirtyAll() {
	for _, w := range n.watches {
		w.events++
	}
}

// WatchFD watches the directory open as fd: the watch (one more use of
// it, for the state that keeps it) and the events count a state read from
// now on is clean at; nil when no watch can be added. The kernel gives an
// inode it watches already the same watch, so old (the state's) is found
// again if fd is still its directory. dev is the file system the
// directory is thought to be on (its parent's): none is added on one
// known not to be watchable; Confirm decides once its own is known.
func (n *Notifier) WatchFD(fd int, old *Watch, dev uint64) (*Watch, uint64) {
	if n == nil || n.released {
		return nil, 0
	}
	if ok, known := n.devs[dev]; known && !ok {
		return nil, 0
	}
	atCap := n.full || len(n.watches) >= n.max
	if atCap && (old == nil || old.dead) {
		return nil, 0
	}
	wd, err := unix.InotifyAddWatch(n.fd, "/proc/self/fd/"+strconv.Itoa(fd), n.mask)
	if err != nil {
		if err == unix.ENOSPC {
			n.full = true
		}
		return nil, 0 // EACCES, ENOSPC, a file system without inotify
	}
	w := n.watches[int32(wd)]
	if w == nil {
		if atCap { // another directory than old's: over the budget
			_, _ = unix.InotifyRmWatch(n.fd, uint32(wd))
			return nil, 0
		}
		w = &Watch{wd: int32(wd)}
		n.watches[int32(wd)] = w
	}
	w.unsure = false // the kernel has it, on this directory
	w.refs++
	return w, w.events
}

// Confirm keeps w, a watch added on the directory open as fd before its
// fstat found it on dev, if that file system's events are complete.
func (n *Notifier) Confirm(w *Watch, dev uint64, fd int) *Watch {
	if w == nil {
		return nil
	}
	ok, known := n.devs[dev]
	if !known {
		var sf unix.Statfs_t
		ok = unix.Fstatfs(fd, &sf) == nil && watchable(uint32(sf.Type))
		n.devs[dev] = ok
	}
	if !ok {
		n.Release(w)
		return nil
	}
	return w
}

// PathWatchable reports whether the file system of path has complete
// events.
func (n *Notifier) PathWatchable(path string) bool {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return false
	}
	ok, known := n.devs[uint64(st.Dev)]
	if !known {
		var sf unix.Statfs_t
		ok = unix.Statfs(path, &sf) == nil && watchable(uint32(sf.Type))
		n.devs[uint64(st.Dev)] = ok
	}
	return ok
}

// Release drops one state's use of w; the last removes the watch.
func (n *Notifier) Release(w *Watch) {
	if n == nil || w == nil {
		return
	}
	if w.refs--; w.refs > 0 || w.dead {
		return
	}
	n.remove(w)
}

// remove takes w off the kernel's list and n's, whoever still holds it:
// it no longer vouches for its directory.
func (n *Notifier) remove(w *Watch) {
	_, _ = unix.InotifyRmWatch(n.fd, uint32(w.wd))
	delete(n.watches, w.wd)
	w.dead = true
	n.full = false
}

// Room reports whether another watch may be added.
func (n *Notifier) Room() bool {
	return n != nil && !n.released && !n.full && len(n.watches) < n.max
}

// watchable reports whether changes to directories on the file system
// with this magic number all pass through this kernel, so that its
// events are complete: local disks and memory, not NFS, FUSE or CIFS,
// which another machine or process can change behind the kernel's back,
// nor overlayfs, whose layers can be written without it.
func watchable(magic uint32) bool {
	switch magic {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.RAMFS_MAGIC, 0x2fc12fc1 /* zfs */, 0xca451a4e /* bcachefs */ :
		return true
	}
	return false
}
