package undo

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A warm scan costs what changed, not a stat per file: the Scanner keeps
// each directory's listing and its files' stats (scan_tree_linux.go), and
// inotify says which directories changed since.
//
//   - A directory's cached state is reused without a system call only if
//     a watch on its inode was in place before its listing was read, and
//     no event has come for it since. The watch is added through the
//     directory's own descriptor (/proc/self/fd/N): that inode, never a
//     path a command could swap.
//   - The kernel queues an event inside the system call that made the
//     change, so once a command's processes are gone its changes are
//     queued; Before and After drain the queue first.
//   - The mask covers content, not only entries (unlike the sandbox's):
//     a write (IN_MODIFY), a close after writing (IN_CLOSE_WRITE: a write
//     through a shared mmap makes no IN_MODIFY, but the mapping holds the
//     file open for writing until it goes, at the latest when its process
//     exits), attributes and link counts (IN_ATTRIB), entries created,
//     deleted, moved in or out, the directory itself deleted or moved.
//   - Every process a bash call starts is gone when After runs, at every
//     sandbox level (PID namespace, or the helper's subreaper, which kills
//     what is left before it exits). Background tasks outlive calls by
//     design: while one runs (ScannerOptions.Busy) the workspace is
//     walked, as without inotify.
//   - A file with more than one link can be written through a link in a
//     directory that is not watched: such files are lstat'ed at every scan.
//   - A lost queue (IN_Q_OVERFLOW) dirties every directory, a removed
//     watch (IN_IGNORED: deleted, unmounted) its own, and so does a change
//     to coder's mount table, which the kernel marks on
//     /proc/self/mountinfo (POLLPRI): a mount is no inotify event, yet it
//     changes what a path holds.
//   - Where no watch can be added (the budget, no read permission, a file
//     system whose changes need not pass through this kernel: NFS, FUSE,
//     CIFS, overlayfs) the directory is read at every scan; a root on such
//     a file system is walked as without inotify.
//   - The watches a user may hold are shared with their editor's
//     (fs.inotify.max_user_watches) and with the sandbox's scan, which
//     takes up to a quarter: undo takes at most an eighth, and never more
//     than maxWatchesAbs (each pins an inode, about 1 KiB of kernel memory).
//
// This is undo's own inotify instance, not the sandbox's: the two watch
// for different things (the sandbox must not be woken by writes), and
// sharing watches would tie their budgets and their masks together.

const notifyMask = unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB |
	unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// maxWatchesAbs is the most watches undo holds, whatever the limit.
const maxWatchesAbs = 32768

// notifyOff turns inotify off for Scanners made from then on (benchmarks
// and tests compare with and without).
var notifyOff = false

// dirWatch is one inotify watch: a directory's inode.
type dirWatch struct {
	wd     int32
	events uint64 // events seen for it: a state read at events e is clean while it stays e
	refs   int    // directory states that use it
	dead   bool   // removed by the kernel or by us
	// unsure: events were lost, its IN_IGNORED perhaps among them, so it
	// is not known to watch still until the kernel gives it again.
	unsure bool
}

// unchanged reports whether w still watches its directory and no event
// came for it since since.
func (w *dirWatch) unchanged(since uint64) bool {
	return w != nil && !w.dead && !w.unsure && w.events == since
}

// notifier is the process's inotify instance for undo. Its lock is held
// for a whole scan.
type notifier struct {
	mu        sync.Mutex
	fd        int
	mounts    int // /proc/self/mountinfo, polled for changes to the mount table
	watches   map[int32]*dirWatch
	max       int             // watches undo may hold
	full      bool            // the kernel refused one for lack of room: none added until one is released
	overflows int             // queue overflows seen
	devs      map[uint64]bool // file systems seen: whether their events are complete
	buf       []byte
}

var (
	notifyOnce sync.Once
	theNotify  *notifier
)

// processNotifier is the process's notifier, nil when inotify cannot be
// used.
func processNotifier() *notifier {
	notifyOnce.Do(func() {
		mounts, err := unix.Open("/proc/self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return // mounts would go unseen
		}
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
		if err != nil {
			unix.Close(mounts)
			return
		}
		theNotify = &notifier{fd: fd, mounts: mounts, watches: map[int32]*dirWatch{}, devs: map[uint64]bool{},
			max: watchBudget(), buf: make([]byte, 64<<10)}
	})
	return theNotify
}

// watchBudget is an eighth of the per-user limit, at most maxWatchesAbs.
func watchBudget() int {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	limit, perr := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || perr != nil || limit <= 0 {
		limit = 8192 // the old default: the smallest a kernel is likely to have
	}
	return min(limit/8, maxWatchesAbs)
}

// drain reads every queued event and dirties the directories they name;
// a change to the mount table dirties them all.
func (n *notifier) drain() {
	pfd := []unix.PollFd{{Fd: int32(n.mounts), Events: unix.POLLPRI}}
	if k, err := unix.Poll(pfd, 0); err != nil || k > 0 && pfd[0].Revents != 0 {
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
func (n *notifier) event(wd int32, mask uint32) {
	if mask&unix.IN_Q_OVERFLOW != 0 {
		n.overflows++
		for _, w := range n.watches {
			w.unsure = true
		}
		n.dirtyAll()
		return
	}
	w := n.watches[wd]
	if w == nil {
		return // removed by us, its IN_IGNORED still queued
	}
	w.events++
	if mask&unix.IN_IGNORED != 0 {
		w.dead = true
		delete(n.watches, wd)
		n.full = false
	}
}

func (n *notifier) dirtyAll() {
	for _, w := range n.watches {
		w.events++
	}
}

// watchFD watches the directory open as fd: the watch (one more use of
// it, for the state that keeps it) and the events count a state read from
// now on is clean at; nil when no watch can be added. The kernel gives an
// inode it watches already the same watch. dev is the file system the
// directory is thought to be on (its parent's): none is added on one
// known not to be watchable; confirm decides once its own is known.
func (n *notifier) watchFD(fd int, dev uint64) (*dirWatch, uint64) {
	if ok, known := n.devs[dev]; known && !ok {
		return nil, 0
	}
	atCap := n.full || len(n.watches) >= n.max
	wd, err := unix.InotifyAddWatch(n.fd, "/proc/self/fd/"+strconv.Itoa(fd), notifyMask)
	if err != nil {
		if err == unix.ENOSPC {
			n.full = true
		}
		return nil, 0 // EACCES, ENOSPC, a file system without inotify: read at every scan
	}
	w := n.watches[int32(wd)]
	if w == nil {
		if atCap { // a new watch, over the budget
			_, _ = unix.InotifyRmWatch(n.fd, uint32(wd))
			return nil, 0
		}
		w = &dirWatch{wd: int32(wd)}
		n.watches[int32(wd)] = w
	}
	w.unsure = false // the kernel has it, on this directory
	w.refs++
	return w, w.events
}

// confirm keeps w, a watch added on the directory open as fd before its
// fstat found it on dev, if that file system's events are complete.
func (n *notifier) confirm(w *dirWatch, dev uint64, fd int) *dirWatch {
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
		n.release(w)
		return nil
	}
	return w
}

// rootWatchable reports whether the file system of root has complete
// events.
func (n *notifier) rootWatchable(root string) bool {
	var st unix.Stat_t
	if unix.Stat(root, &st) != nil {
		return false
	}
	ok, known := n.devs[uint64(st.Dev)]
	if !known {
		var sf unix.Statfs_t
		ok = unix.Statfs(root, &sf) == nil && watchable(uint32(sf.Type))
		n.devs[uint64(st.Dev)] = ok
	}
	return ok
}

// release drops one state's use of w; the last removes the watch.
func (n *notifier) release(w *dirWatch) {
	if w == nil {
		return
	}
	if w.refs--; w.refs > 0 || w.dead {
		return
	}
	_, _ = unix.InotifyRmWatch(n.fd, uint32(w.wd))
	delete(n.watches, w.wd)
	w.dead = true
	n.full = false
}

// watchable reports whether changes to files on the file system with this
// magic number all pass through this kernel, so that its events are
// complete: local disks and memory, not NFS, FUSE or CIFS, which another
// machine or process can change behind the kernel's back, nor overlayfs,
// whose layers can be written without it.
func watchable(magic uint32) bool {
	switch magic {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.RAMFS_MAGIC, 0x2fc12fc1 /* zfs */, 0xca451a4e /* bcachefs */ :
		return true
	}
	return false
}
