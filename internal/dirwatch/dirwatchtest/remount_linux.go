package dirwatchtest

import (
	"testing"

	"github.com/coder-agent/coder/internal/dirwatch"
)

// Remounted runs f and reports whether n saw the mount table change while
// it ran. Such a change dirties every directory n watches (a mount is no
// inotify event, yet it changes what a path holds), so a count of what a
// scan read or checked then proves nothing about the cache. The mount may
// be anyone's in the process's mount namespace: another package's test
// mounting a tmpfs beside this one. A nil n (inotify off or missing) sees
// none.
func Remounted(n *dirwatch.Notifier, f func()) bool {
	if n == nil {
		f()
		return false
	}
	n.Lock()
	before := n.Remounts()
	n.Unlock()
	f()
	n.Lock()
	defer n.Unlock()
	return n.Remounts() != before
}

// Quiet runs f, a scan whose counts a test judges, again while the mount
// table changed during it (Remounted), at most 20 times.
func Quiet(t testing.TB, n *dirwatch.Notifier, f func()) {
	t.Helper()
	for range 20 {
		if !Remounted(n, f) {
			return
		}
	}
	t.Fatal("the mount table changed during 20 scans in a row")
}
