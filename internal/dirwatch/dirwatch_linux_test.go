package dirwatch

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWatchCountsEventsOnItsInode: a watch added through a descriptor
// counts the events of that directory, found again when the same inode is
// watched twice, and not those of a directory put in its place.
func TestWatchCountsEventsOnItsInode(t *testing.T) {
	n := New(unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO, 16)
	if n == nil {
		t.Skip("no inotify here")
	}
	dir := filepath.Join(t.TempDir(), "d")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	watch := func(p string) (*Watch, uint64) { return watchDir(t, n, p) }
	n.Lock()
	defer n.Unlock()
	w, at := watch(dir)
	if w == nil {
		t.Skip("the temporary directory's file system is not watched")
	}
	n.Drain()
	if !w.Unchanged(at) && n.remounts == 0 || !w.Alive() { // a mount anywhere dirties every watch
		t.Fatal("a watch changed with nothing done")
	}
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	n.Drain()
	if w.Unchanged(at) {
		t.Fatal("a file created, and its directory's watch counted nothing")
	}
	again, at2 := watch(dir)
	if again != w || n.Len() != 1 {
		t.Fatalf("the same inode watched twice: %p, %p, %d watches", w, again, n.Len())
	}
	n.Release(again)
	// Another directory in its place is another watch; the old one's
	// inode, moved away, still counts its own events.
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	other, _ := watch(dir)
	if other == w {
		t.Fatal("a new directory at the path got the old one's watch")
	}
	if err := os.WriteFile(filepath.Join(dir+".old", "g"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	n.Drain()
	if w.Unchanged(at2) {
		t.Fatal("the moved directory's watch missed a file created in it")
	}
	n.Release(w)
	n.Release(other)
	if n.Len() != 0 || w.Alive() {
		t.Fatalf("%d watches left after every release", n.Len())
	}
}

func TestBudgetIsAShareOfTheLimit(t *testing.T) {
	if b := Budget(8, 100); b <= 0 || b > 100 {
		t.Fatalf("Budget(8, 100) = %d", b)
	}
	if Budget(4, 1<<30) < Budget(8, 1<<30) {
		t.Fatal("a larger share gave fewer watches")
	}
}

// watchDir watches the directory p through a descriptor, as a scan does.
func watchDir(t *testing.T, n *Notifier, p string) (*Watch, uint64) {
	t.Helper()
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	w, at := n.WatchFD(fd, nil, uint64(st.Dev))
	return n.Confirm(w, uint64(st.Dev), fd), at
}
