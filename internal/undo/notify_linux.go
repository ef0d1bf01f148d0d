package undo

import (
	"golang.org/x/sys/unix"

	"github.com/coder-agent/coder/internal/dirwatch"
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
//     exits), attributes (IN_ATTRIB), entries created, deleted, moved in
//     or out, the directory itself deleted or moved.
//   - Every process a bash call starts is gone when After runs, at every
//     sandbox level (PID namespace, or the helper's subreaper, which kills
//     what is left before it exits). Background tasks outlive calls by
//     design: while one runs (ScannerOptions.Busy) the workspace is
//     walked, as without inotify.
//   - A file with more than one link can be written through a link in a
//     directory that is not watched: such files are lstat'ed at every scan.
//     A link made since (its count is no event for the directory) that
//     shows up in the tree makes the scan run again without trust, which
//     finds the other name. One made from outside the tree to a file
//     whose directory stays clean is seen by no watch: the gap left,
//     bounded by where the sandbox lets a command write.
//   - An ignore file changed (a .gitignore in the tree, seen when its
//     directory is read; those above the root and info/exclude, by their
//     stat at each Before) means rules read again and a full read.
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
// This is undo's own inotify instance (package dirwatch), not the
// sandbox's: the two watch for different things (the sandbox's scan must
// not be woken by writes), and one instance would tie their masks and
// budgets together.

const notifyMask = unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB |
	unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// maxWatchesAbs is the most watches undo holds, whatever the limit.
const maxWatchesAbs = 32768

// notifyOff turns inotify off for Scanners made from then on (benchmarks
// and tests compare with and without).
var notifyOff = false

type (
	dirWatch = dirwatch.Watch
	notifier = dirwatch.Notifier
)

// processNotifier is the process's notifier for undo, nil when inotify
// cannot be used, made at the first scan. Its lock is held for a whole
// scan.
var processNotifier = dirwatch.Lazy(notifyMask, watchBudget)

// watchBudget is an eighth of the per-user limit, at most maxWatchesAbs.
func watchBudget() int { return dirwatch.Budget(8, maxWatchesAbs) }
