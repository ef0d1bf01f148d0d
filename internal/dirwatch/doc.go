// Package dirwatch keeps inotify watches on directories for scans that
// cache what they read: a watch is added through the directory's held
// descriptor before it is read, the event queue is drained into a count
// per watch (a state read at count c is clean while the count stays c),
// a lost queue or a change to the mount table dirties every directory,
// and only file systems whose changes all pass through this kernel are
// watched. Each user (the sandbox's control-file scan, undo's scan) has
// its own instance, with its own mask and its share of the per-user
// watch limit. Disable and ReleaseAll keep the instances' teardown off a
// run's exit. Linux only but for those two.
package dirwatch
