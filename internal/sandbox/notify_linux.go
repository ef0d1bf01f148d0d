package sandbox

import (
	"golang.org/x/sys/unix"

	"github.com/coder-agent/coder/internal/dirwatch"
)

// The scan's directory cache is kept by inotify: one instance per
// process, shared by the scanners, so that a warm scan costs what
// changed, not a stat per directory.
//
//   - A cached directory is reused without a system call only if a watch
//     on its inode was in place before the read (or the change-time check)
//     that produced the state, and no event has come for it since. The
//     watch is added through the directory's own descriptor
//     (/proc/self/fd/N): that inode, never a path a command could swap.
//   - The kernel queues an event inside the system call that made the
//     change, so once a command has exited its changes are queued before
//     the scan after it, which drains the queue first.
//   - The mask is what changes what the scan sees: entries created,
//     deleted, moved in or out; attributes (a mode change makes a
//     directory readable; children's attribute changes come too, as
//     harmless noise); the directory itself deleted or moved. Not
//     IN_MODIFY: writing files must not dirty their directories.
//   - A sub-directory of a clean directory is not even stat'ed: a change
//     to the parent's entries would have been an event on the parent.
//     One of a directory just read or checked is checked in turn by its
//     identity (its name may hold another directory now); the root, opened
//     by path at every scan, too.
//   - A lost queue (IN_Q_OVERFLOW) dirties every directory, a removed
//     watch (IN_IGNORED: deleted, unmounted) its own. So does a change to
//     coder's mount table, which the kernel marks on /proc/self/mountinfo
//     (POLLPRI): a mount is no inotify event, yet it changes what a path
//     holds (at the lower levels a command shares coder's mount namespace:
//     fusermount). A dirty directory falls back to the identity and
//     change-time check of a scan without inotify, correct on its own.
//   - Where no watch can be added (the limit, no read permission, a file
//     system whose changes need not pass through this kernel: NFS, FUSE,
//     CIFS, and overlayfs, whose layers can be written beside it), the
//     directory keeps the change-time check.
//   - The watches a user may hold are shared with their editor's
//     (fs.inotify.max_user_watches: 8,192 on kernels before 5.11, about
//     1% of memory since). coder takes at most a quarter of it, and never
//     more than 65,536 (each watch pins its directory's inode, about 1 KiB
//     of kernel memory), leaving the rest to the person's tools.

const notifyMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// maxWatchesAbs is the most watches coder holds, whatever the limit.
const maxWatchesAbs = 65536

// notifyOff turns inotify off (benchmarks compare with and without).
var notifyOff = false

// dirWatch is one inotify watch: a directory's inode; notifier the
// process's inotify instance for the scan (package dirwatch). Its lock is
// held for a whole scan, after the scanner's.
type (
	dirWatch = dirwatch.Watch
	notifier = dirwatch.Notifier
)

// theNotifier is made at the first sandboxed call.
var theNotifier = dirwatch.Lazy(notifyMask, watchBudget)

// processNotifier is the process's notifier, nil when inotify cannot be
// used (or is turned off).
func processNotifier() *notifier {
	if notifyOff {
		return nil
	}
	return theNotifier()
}

// watchBudget is a quarter of the per-user limit, at most maxWatchesAbs.
func watchBudget() int { return dirwatch.Budget(4, maxWatchesAbs) }
