package dirwatch

import "sync/atomic"

// firstWatched is the scan of a root from which its scanner keeps
// watches on it; 0: never (WatchFrom).
var firstWatched = func() *atomic.Int64 {
	var v atomic.Int64
	v.Store(1)
	return &v
}()

// WatchFrom makes this process's scanners keep watches on a root from its
// n-th scan on, and none before; n < 1: never. The default is 1.
//
// A watch added by one scan makes the next ones cost what changed. But an
// inotify instance that holds watches makes the process's exit wait for
// the kernel to destroy them: closing it waits out an SRCU grace period
// (fsnotify_destroy_group), 5 to 25 ms on a 2-core VM for each instance,
// the sandbox's and undo's. A session pays that once; a process that
// scans a root once or twice pays it for nothing, since its second scan
// costs about what the first one's watches save. So `coder sandbox` and
// an editor's terminal, which run one command, keep none (0), and a
// headless run keeps them from a root's third scan (3: a run whose model
// makes one call, scanned before and after it, keeps none). Call it
// before the first scan.
func WatchFrom(n int) {
	firstWatched.Store(int64(max(n, 0)))
}

// Watching reports whether a root's scan number scan (1 for its first)
// keeps watches.
func Watching(scan int) bool {
	n := firstWatched.Load()
	return n >= 1 && int64(scan) >= n
}
