package dirwatch

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// kernelWatches is the number of watches the kernel lists for n's
// instance (/proc/self/fdinfo).
func kernelWatches(t *testing.T, n *Notifier) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(n.fd))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\ninotify wd:")
}

// TestReleaseAllRemovesEveryWatch: ReleaseAll removes every watch of the
// instances Lazy made: the kernel lists none after (the positive control:
// it listed them before), the watches read as dead, so a directory's
// cached state is no longer taken on their word, and none is added after.
func TestReleaseAllRemovesEveryWatch(t *testing.T) {
	n := lazyForTest(t, unix.IN_CREATE|unix.IN_DELETE, 16)
	watch := func(p string) *Watch {
		w, _ := watchDir(t, n, p)
		return w
	}
	var ws []*Watch
	base := t.TempDir()
	n.Lock()
	for _, d := range []string{"a", "b", "c"} {
		p := filepath.Join(base, d)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if w := watch(p); w != nil {
			ws = append(ws, w)
		}
	}
	n.Unlock()
	if len(ws) != 3 {
		t.Skip("the temporary directory's file system is not watched")
	}
	if got := kernelWatches(t, n); got != 3 {
		t.Fatalf("positive control: the kernel lists %d watches, want 3", got)
	}
	ReleaseAll()
	if got := kernelWatches(t, n); got != 0 {
		t.Fatalf("after ReleaseAll the kernel lists %d watches", got)
	}
	n.Lock()
	defer n.Unlock()
	n.Drain() // the IN_IGNORED of each removed watch
	for _, w := range ws {
		if w.Alive() || w.Unchanged(w.Count()) {
			t.Fatal("a released watch still vouches for its directory")
		}
	}
	if n.Len() != 0 || n.Room() {
		t.Fatalf("after ReleaseAll: %d watches held, room for more: %v", n.Len(), n.Room())
	}
	if w := watch(filepath.Join(base, "a")); w != nil {
		t.Fatal("a watch was added after ReleaseAll")
	}
	if got := kernelWatches(t, n); got != 0 {
		t.Fatalf("the kernel lists %d watches after one was asked for", got)
	}
	n.Unrelease()
}

// TestDisableMakesNoInstance: after Disable, Lazy makes no instance; the
// positive control, one asked before, was made.
func TestDisableMakesNoInstance(t *testing.T) {
	lazyForTest(t, unix.IN_CREATE, 1)
	Disable()
	defer disabled.Store(false)
	if Lazy(unix.IN_CREATE, func() int { return 1 })() != nil {
		t.Fatal("Disable, yet an instance was made")
	}
}

// lazyForTest is an instance made by Lazy, forgotten by ReleaseAll after
// the test; it skips the test where inotify cannot be used.
func lazyForTest(t *testing.T, mask uint32, max int) *Notifier {
	t.Helper()
	n := Lazy(mask, func() int { return max })()
	if n == nil {
		t.Skip("no inotify here")
	}
	t.Cleanup(func() {
		instancesMu.Lock()
		instances = slices.DeleteFunc(instances, func(m *Notifier) bool { return m == n })
		instancesMu.Unlock()
	})
	return n
}
