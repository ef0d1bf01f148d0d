package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/coder-agent/coder/internal/control"
	"github.com/coder-agent/coder/internal/dirwatch"
	"github.com/coder-agent/coder/internal/dirwatch/dirwatchtest"
)

// scanOf scans ws as a workspace.
func scanOf(t testing.TB, ws string) tree {
	t.Helper()
	tr, err := scanRoot(ws, control.Tree, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// quietScanOf is scanOf for a test that counts what the scan read or
// checked: made again while the mount table changed during it, since that
// dirties every directory (dirwatchtest.Quiet).
func quietScanOf(t testing.TB, ws string) (tr tree) {
	t.Helper()
	dirwatchtest.Quiet(t, processNotifier(), func() { tr = scanOf(t, ws) })
	return tr
}

// settle ages every cached state of ws's scanner, as if read long after
// its last change: the change-time check may then keep it, so a test
// does not depend on cacheSlop's clock.
func settle(ws string) {
	s := scannerFor(ws, control.Tree, nil)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ds := range s.dirs {
		ds.settled = true
	}
}

// forgetScanners drops every scanner's cache and its watches.
func forgetScanners() {
	n := processNotifier()
	n.Lock()
	defer n.Unlock()
	scannersMu.Lock()
	defer scannersMu.Unlock()
	for k, s := range scanners {
		for _, ds := range s.dirs {
			n.Release(ds.w)
		}
		delete(scanners, k)
	}
}

// withNotify runs f with inotify on or off, with fresh caches.
func withNotify(t testing.TB, on bool, f func()) {
	t.Helper()
	forgetScanners()
	notifyOff = !on
	defer func() { notifyOff = false; forgetScanners() }()
	f()
}

// oldTree is a tree of long-unchanged directories: a chain a/b/c/d/e with
// siblings, a nested repository, and a directory a pointer may target.
func oldTree(t *testing.T, ws string) {
	for _, f := range []string{"a/b/c/d/e/keep", "a/b/c/d/f/keep", "a/b/x/keep", "a/y/keep", "z/keep",
		"vendor/lib/.git/HEAD", "vendor/lib/src/x.go", "g2/HEAD", "g2/config"} {
		writeTestFile(t, filepath.Join(ws, f), "x")
	}
}

// warmOldTree is an oldTree whose states are aged and whose warm scan,
// the positive control, trusted the cache whole: nothing read or stat'ed.
func warmOldTree(t *testing.T) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	oldTree(t, ws)
	scanOf(t, ws)
	settle(ws)
	if warm := quietScanOf(t, ws); warm.reads != 0 || warm.checks != 0 {
		t.Fatalf("warm scan: %d of %d read, %d stat'ed", warm.reads, warm.dirs, warm.checks)
	}
	return ws
}

// TestNotifyScanSeesEveryChangeToAWarmTree: after a warm scan that read
// and stat'ed nothing (the positive control: the cache was trusted
// whole), what an attacker might try deep in long-unchanged directories
// is found by the next scan, which reads only what changed. The states
// are aged (settle), so a dirty directory reused on its watch's word
// would be missed. The same cases pass with inotify off.
func TestNotifyScanSeesEveryChangeToAWarmTree(t *testing.T) {
	outside := t.TempDir()
	cases := []struct {
		name   string
		change func(t *testing.T, ws string)
		want   []string
	}{
		{"mcp.json deep", func(t *testing.T, ws string) {
			writeTestFile(t, filepath.Join(ws, "a/b/c/d/e/.mcp.json"), "{}")
		}, []string{"a/b/c/d/e/.mcp.json"}},
		{"git dir deep", func(t *testing.T, ws string) {
			writeTestFile(t, filepath.Join(ws, "a/b/c/d/f/.git/config"), "x")
		}, []string{"a/b/c/d/f/.git", "a/b/c/d/f/.git/config"}},
		{"git pointer", func(t *testing.T, ws string) {
			writeTestFile(t, filepath.Join(ws, "a/b/x/.git"), "gitdir: ../../../g2\n")
		}, []string{"a/b/x/.git", "g2/config"}},
		{"nested repository's config", func(t *testing.T, ws string) {
			writeTestFile(t, filepath.Join(ws, "vendor/lib/.git/config"), "x")
		}, []string{"vendor/lib/.git/config"}},
		{"directory moved into place", func(t *testing.T, ws string) {
			src := filepath.Join(outside, t.Name())
			writeTestFile(t, filepath.Join(src, "y/.git/hooks/pre-commit"), "x")
			mustRename(t, src, filepath.Join(ws, "a/b/c/d/e/m"))
		}, []string{"a/b/c/d/e/m/y/.git", "a/b/c/d/e/m/y/.git/hooks"}},
		{"directory renamed", func(t *testing.T, ws string) {
			writeTestFile(t, filepath.Join(ws, "z/.mcp.json"), "{}")
			mustRename(t, filepath.Join(ws, "z"), filepath.Join(ws, "a/b/c/d/e/z"))
		}, []string{"a/b/c/d/e/z/.mcp.json"}},
		{"directory replaced by a symlink", func(t *testing.T, ws string) {
			writeTestFile(t, filepath.Join(outside, "lure/d/e/.mcp.json"), "{}")
			mustRename(t, filepath.Join(ws, "a/b/c"), filepath.Join(ws, "q"))
			if err := os.Symlink(filepath.Join(outside, "lure"), filepath.Join(ws, "a/b/c")); err != nil {
				t.Fatal(err)
			}
			writeTestFile(t, filepath.Join(ws, "q/d/e/.mcp.json"), "{}")
		}, []string{"q/d/e/.mcp.json"}},
		{"directory removed and made again", func(t *testing.T, ws string) {
			if err := os.RemoveAll(filepath.Join(ws, "a/b/c/d")); err != nil {
				t.Fatal(err)
			}
			writeTestFile(t, filepath.Join(ws, "a/b/c/d/e/.claude/settings.json"), "{}")
		}, []string{"a/b/c/d/e/.claude"}},
		{"directory made readable", func(t *testing.T, ws string) {
			// Unreadable at the warm scans (but to root, which reads
			// it anyway: then this is a file created in it), readable
			// now, with a control entry in it.
			d := filepath.Join(ws, "a/b/c/d/e")
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
			writeTestFile(t, filepath.Join(d, ".mcp.json"), "{}")
		}, []string{"a/b/c/d/e/.mcp.json"}},
		{"root replaced", func(t *testing.T, ws string) {
			mustRename(t, ws, ws+".old")
			writeTestFile(t, filepath.Join(ws, "a/b/c/d/e/.mcp.json"), "{}")
		}, []string{"a/b/c/d/e/.mcp.json"}},
	}
	for i := range cases[:len(cases)-1] { // the nested repository stays, but with the old root
		cases[i].want = append(cases[i].want, "vendor/lib/.git")
	}
	for _, on := range []bool{true, false} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("inotify=%v/%s", on, c.name), func(t *testing.T) {
				withNotify(t, on, func() {
					ws := filepath.Join(t.TempDir(), "ws")
					oldTree(t, ws)
					unreadable := c.name == "directory made readable"
					if unreadable {
						if err := os.Chmod(filepath.Join(ws, "a/b/c/d/e"), 0); err != nil {
							t.Fatal(err)
						}
					}
					if got := rels(scanOf(t, ws).control); !slices.Equal(got, []string{"vendor/lib/.git"}) {
						t.Fatalf("cold scan: %q", got)
					}
					settle(ws)
					warm := quietScanOf(t, ws)
					if warm.reads != 0 || (on && warm.checks != 0 && !unreadable) {
						t.Fatalf("warm scan: %d of %d directories read, %d stat'ed: the cache was not used",
							warm.reads, warm.dirs, warm.checks)
					}
					c.change(t, ws)
					after := scanOf(t, ws)
					want := slices.Sorted(slices.Values(c.want))
					if got := rels(after.control); !slices.Equal(got, want) {
						t.Fatalf("after the change:\n got %q\nwant %q", got, want)
					}
					if on && c.name == "mcp.json deep" && after.reads > 2 {
						t.Errorf("a file created in one directory: %d of %d directories read", after.reads, after.dirs)
					}
				})
			})
		}
	}
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// TestNotifyOverflowFallsBackToChangeTimes: when the kernel's queue
// overflows, the events after it are lost; every directory is then
// checked by its change time, so a control entry created after the
// overflow is still found.
func TestNotifyOverflowFallsBackToChangeTimes(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	limit, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || limit <= 0 || limit > 1<<16 {
		t.Skipf("max_queued_events %q: too many events to overflow it in a test", b)
	}
	withNotify(t, true, func() {
		ws := warmOldTree(t)
		n := processNotifier()
		n.Lock()
		before := n.Overflows()
		n.Unlock()
		noise := filepath.Join(ws, "z")
		for i := 0; i < limit/2+16; i++ { // a create and a delete each
			f := filepath.Join(noise, "n"+strconv.Itoa(i))
			writeTestFile(t, f, "")
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		writeTestFile(t, filepath.Join(ws, "a/b/c/d/e/.mcp.json"), "{}") // its event is lost
		after := scanOf(t, ws)
		n.Lock()
		overflows := n.Overflows()
		n.Unlock()
		if overflows == before {
			t.Fatal("the queue did not overflow: the test proves nothing")
		}
		if got := rels(after.control); !slices.Equal(got, []string{"a/b/c/d/e/.mcp.json", "vendor/lib/.git"}) {
			t.Fatalf("after the overflow: %q", got)
		}
		if after.checks == 0 {
			t.Error("after an overflow no directory was checked")
		}
		// Checked, the directories are clean again: the next scan trusts them.
		if next := quietScanOf(t, ws); next.reads != 0 || next.checks != 0 {
			t.Errorf("the scan after: %d read, %d stat'ed", next.reads, next.checks)
		}
	})
}

// TestNotifyWatchBudgetFallsBackToChangeTimes: beyond coder's share of
// the user's inotify watches, directories keep the change-time check
// (stat'ed at every scan), and changes in them are still found.
func TestNotifyWatchBudgetFallsBackToChangeTimes(t *testing.T) {
	if b := watchBudget(); b <= 0 || b > maxWatchesAbs {
		t.Fatalf("budget %d", b)
	}
	withNotify(t, true, func() {
		n := processNotifier()
		n.Lock()
		saved := n.Max()
		n.SetMax(n.Len() + 3)
		n.Unlock()
		defer func() { n.Lock(); n.SetMax(saved); n.Unlock() }()
		ws := filepath.Join(t.TempDir(), "ws")
		oldTree(t, ws)
		cold := scanOf(t, ws)
		settle(ws)
		warm := quietScanOf(t, ws)
		if warm.reads != 0 || warm.checks == 0 || warm.checks >= warm.dirs {
			t.Fatalf("warm scan at the budget: %d of %d read, %d stat'ed", warm.reads, warm.dirs, warm.checks)
		}
		n.Lock()
		watches, budget := n.Len(), n.Max()
		n.Unlock()
		if watches > budget {
			t.Fatalf("%d watches, budget %d", watches, budget)
		}
		writeTestFile(t, filepath.Join(ws, "a/b/c/d/e/.mcp.json"), "{}")
		if got := rels(scanOf(t, ws).control); !slices.Equal(got, []string{"a/b/c/d/e/.mcp.json", "vendor/lib/.git"}) {
			t.Fatalf("after the change (%d dirs): %q", cold.dirs, got)
		}
	})
}

// TestNotifyMountDirtiesEveryDirectory: a mount over a directory is no
// inotify event, yet it changes what the path holds; a change to the
// mount table sends every directory back to the identity check, so what
// the mount brings is found. Needs the right to mount (root).
func TestNotifyMountDirtiesEveryDirectory(t *testing.T) {
	withNotify(t, true, func() {
		ws := warmOldTree(t)
		over := filepath.Join(ws, "a/b/c")
		if err := unix.Mount("coder-test", over, "tmpfs", 0, "size=1m"); err != nil {
			t.Skipf("cannot mount here: %v", err)
		}
		t.Cleanup(func() { _ = unix.Unmount(over, unix.MNT_DETACH) })
		writeTestFile(t, filepath.Join(over, "d/.mcp.json"), "{}")
		if got := rels(scanOf(t, ws).control); !slices.Equal(got, []string{"a/b/c/d/.mcp.json", "vendor/lib/.git"}) {
			t.Fatalf("after a mount: %q", got)
		}
	})
}

// TestNotifyUnwatchableFileSystemKeepsChangeTimes: on a file system whose
// events may be incomplete (NFS, FUSE: here the test's own, so marked) no
// watch is added, every directory is stat'ed at each scan, and changes in
// it are found.
func TestNotifyUnwatchableFileSystemKeepsChangeTimes(t *testing.T) {
	withNotify(t, true, func() {
		ws := filepath.Join(t.TempDir(), "ws")
		oldTree(t, ws)
		var st unix.Stat_t
		if err := unix.Stat(ws, &st); err != nil {
			t.Fatal(err)
		}
		n := processNotifier()
		n.Lock()
		restore := n.MarkDev(uint64(st.Dev), false)
		watches := n.Len()
		n.Unlock()
		defer func() { n.Lock(); restore(); n.Unlock() }()
		scanOf(t, ws)
		settle(ws)
		warm := quietScanOf(t, ws)
		n.Lock()
		added := n.Len() - watches
		n.Unlock()
		if warm.reads != 0 || warm.checks < warm.dirs-1 || added != 0 {
			t.Fatalf("warm scan: %d of %d read, %d stat'ed, %d watches added", warm.reads, warm.dirs, warm.checks, added)
		}
		writeTestFile(t, filepath.Join(ws, "a/b/c/d/e/.mcp.json"), "{}")
		if got := rels(scanOf(t, ws).control); !slices.Equal(got, []string{"a/b/c/d/e/.mcp.json", "vendor/lib/.git"}) {
			t.Fatalf("after the change: %q", got)
		}
	})
}

// TestScanAfterReleaseAllSeesEveryChange: once a headless run has
// released its watches (dirwatch.ReleaseAll), a later scan of a warm tree
// (the positive control: it read and stat'ed nothing) takes no cached
// state on a released watch's word: a control file made deep in it is
// found, and no watch is added.
func TestScanAfterReleaseAllSeesEveryChange(t *testing.T) {
	withNotify(t, true, func() {
		ws := warmOldTree(t)
		n := processNotifier()
		dirwatch.ReleaseAll()
		defer func() { n.Lock(); n.Unrelease(); n.Unlock() }()
		writeTestFile(t, filepath.Join(ws, "a/b/c/d/e/.mcp.json"), "{}")
		got := scanOf(t, ws)
		if !slices.ContainsFunc(got.control, func(f found) bool { return f.rel == "a/b/c/d/e/.mcp.json" }) {
			t.Fatalf("after ReleaseAll the scan missed a new .mcp.json: %+v", got.control)
		}
		n.Lock()
		defer n.Unlock()
		if n.Len() != 0 {
			t.Fatalf("%d watches added after ReleaseAll", n.Len())
		}
	})
}
