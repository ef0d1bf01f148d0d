package dirwatch

import "sync/atomic"

// Closing an inotify instance that holds watches waits until the kernel
// has destroyed them (fsnotify_destroy_group waits out an SRCU grace
// period), and a process's exit closes its instances: 5 to 25 ms on a
// 2-core VM for each (the sandbox's scan and undo's have one each), at
// the end of every run that scanned. Two ways keep that off a run's
// critical path: a process that runs one command keeps no watch
// (Disable), and a run that has done its last scan removes its watches
// before it saves and closes (ReleaseAll), so that the kernel destroys
// them meanwhile.

var disabled atomic.Bool

// Disable makes this process keep no watch: its instances are never made
// (Lazy returns nil), and its scans check each cached directory by its
// change time. For a process that runs one command (`coder sandbox`, an
// editor's terminal): it scans each root once or twice, and the watches
// its first scan would add cost about what they spare the second. Call it
// before the first scan.
func Disable() { disabled.Store(true) }
