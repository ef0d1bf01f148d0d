package undo

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/coder-agent/coder/internal/dirwatch/dirwatchtest"
	"github.com/coder-agent/coder/internal/session"
)

// mmapEnv makes the test binary a child that writes through a shared
// mapping (TestMain): UNDO_TEST_MMAP=path:text[:wait]. It neither unmaps
// nor closes: it exits (or, with wait, reports "mapped" and waits for its
// stdin to close), as a command that forgets to would.
const mmapEnv = "UNDO_TEST_MMAP"

func TestMain(m *testing.M) {
	if spec := os.Getenv(mmapEnv); spec != "" {
		os.Exit(mmapWrite(spec))
	}
	os.Exit(m.Run())
}

func mmapWrite(spec string) int {
	parts := strings.SplitN(spec, ":", 3)
	fd, err := unix.Open(parts[0], unix.O_RDWR, 0)
	if err != nil {
		return 2
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Size < int64(len(parts[1])) {
		return 3
	}
	mem, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return 4
	}
	copy(mem, parts[1])
	if len(parts) == 3 {
		os.Stdout.WriteString("mapped\n")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	}
	return 0
}

// mmapChild runs the test binary as a child writing text at the start of
// path through a shared mapping, and waits for it to exit.
func mmapChild(t *testing.T, path, text string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mmapEnv+"="+path+":"+text)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mmap child: %v\n%s", err, out)
	}
}

// warm is a workspace of long-unchanged files in a deep tree, with a
// Scanner whose cache is warm: its last Before and After, the positive
// control, read no directory with inotify on (and every one with it off).
type warm struct {
	ws, outside string
	sc          *Scanner
	st          *session.Store
	id          string
	turn        int
	before      map[string]string // the workspace as the first scan found it
}

func newWarm(t *testing.T, on bool) *warm {
	t.Helper()
	w := &warm{ws: filepath.Join(t.TempDir(), "ws"), outside: t.TempDir()}
	writeTree(t, w.ws, map[string]string{
		"a/b/c/d/e/deep.txt": "deep one\n", "a/b/c/d/e/other.txt": "other\n", "a/b/c/d/f/keep": "keep\n",
		"a/b/x/mapped.bin": "0123456789abcdef", "a/y/keep": "y\n", "z/keep": "z\n", "top.txt": "top\n",
	})
	ageTree(t, w.ws)
	w.st, w.id = openStore(t, w.ws)
	w.sc = NewScanner(w.ws, ScannerOptions{})
	w.sc.notify = on
	t.Cleanup(func() { releaseTree(w.sc) })
	w.before = tree(t, w.ws)
	w.call(t, func() {}) // the first scan: reads everything
	if changed, warm := w.quietCall(t); len(changed) != 0 {
		t.Fatalf("nothing changed, yet %v", changed)
	} else if on && warm != 0 {
		t.Fatalf("warm Before and After read %d directories", warm)
	}
	return w
}

// quietCall is a call that changes nothing, made again while the mount
// table changed during it, since that dirties every directory
// (dirwatchtest.Quiet), for the tests that count what a call read: what
// After found, and the directories Before and After read.
func (w *warm) quietCall(t *testing.T) (changed []string, reads int) {
	t.Helper()
	dirwatchtest.Quiet(t, processNotifier(), func() {
		before := w.sc.lastReads
		changed = w.call(t, func() {})
		reads = w.sc.lastReads - before
	})
	return changed, reads
}

// call runs change as a bash call would, between Before and After, in a
// turn of its own, and returns what After found changed.
func (w *warm) call(t *testing.T, change func()) []string {
	t.Helper()
	ctx := context.Background()
	m, err := w.sc.Before(ctx)
	must(t, err)
	change()
	w.turn++
	changed, _, err := w.sc.After(ctx, m, NewTurn(w.st, w.id, w.turn, w.ws))
	must(t, err)
	return changed
}

// undo restores the last call's turn.
func (w *warm) undo(t *testing.T) {
	t.Helper()
	restoreTurn(t, w.st, w.id, w.turn, w.ws)
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte(content), 0o644))
}

// TestNotifyScanSeesEveryChangeToAWarmTree: in a warm tree whose last
// scans read nothing (the positive control, in newWarm), what a command
// might do deep in long-unchanged directories is found by the next After
// and undone by /undo, with inotify on and off.
func TestNotifyScanSeesEveryChangeToAWarmTree(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, w *warm)
		want   []string // among what After reports
	}{
		{"plain write deep", func(t *testing.T, w *warm) {
			writeFile(t, filepath.Join(w.ws, "a/b/c/d/e/deep.txt"), "deep two\n")
		}, []string{"a/b/c/d/e/deep.txt"}},
		{"write through a shared mapping, by a process that exits", func(t *testing.T, w *warm) {
			mmapChild(t, filepath.Join(w.ws, "a/b/x/mapped.bin"), "MAPPED")
		}, []string{"a/b/x/mapped.bin"}},
		{"directory moved in", func(t *testing.T, w *warm) {
			src := filepath.Join(w.outside, "in")
			writeFile(t, filepath.Join(src, "sub/new.txt"), "new\n")
			must(t, os.Rename(src, filepath.Join(w.ws, "a/b/c/d/e/in")))
		}, []string{"a/b/c/d/e/in/", "a/b/c/d/e/in/sub/", "a/b/c/d/e/in/sub/new.txt"}},
		{"directory moved out", func(t *testing.T, w *warm) {
			must(t, os.Rename(filepath.Join(w.ws, "a/b/c/d/e"), filepath.Join(w.outside, "e")))
		}, []string{"a/b/c/d/e/", "a/b/c/d/e/deep.txt", "a/b/c/d/e/other.txt"}},
		{"directory renamed, then a file in it written", func(t *testing.T, w *warm) {
			must(t, os.Rename(filepath.Join(w.ws, "a/b/c"), filepath.Join(w.ws, "z/c2")))
			writeFile(t, filepath.Join(w.ws, "z/c2/d/e/deep.txt"), "moved and changed\n")
		}, []string{"a/b/c/", "a/b/c/d/e/deep.txt", "z/c2/", "z/c2/d/e/deep.txt"}},
		{"directory replaced by a symlink", func(t *testing.T, w *warm) {
			writeFile(t, filepath.Join(w.outside, "lure/d/e/deep.txt"), "lure\n")
			must(t, os.Rename(filepath.Join(w.ws, "a/b/c"), filepath.Join(w.ws, "q")))
			must(t, os.Symlink(filepath.Join(w.outside, "lure"), filepath.Join(w.ws, "a/b/c")))
			writeFile(t, filepath.Join(w.ws, "q/d/e/deep.txt"), "deep two\n")
		}, []string{"a/b/c", "a/b/c/", "a/b/c/d/e/deep.txt", "q/d/e/deep.txt"}},
		{"file deleted and made again with the same size and mtime", func(t *testing.T, w *warm) {
			p := filepath.Join(w.ws, "a/b/c/d/e/deep.txt")
			fi, err := os.Stat(p)
			must(t, err)
			must(t, os.Remove(p))
			writeFile(t, p, "deep won\n")
			must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
		}, []string{"a/b/c/d/e/deep.txt"}},
		{"file's mode changed", func(t *testing.T, w *warm) {
			must(t, os.Chmod(filepath.Join(w.ws, "a/y/keep"), 0o600))
		}, []string{"a/y/keep"}},
	}
	for _, on := range []bool{true, false} {
		for _, c := range cases {
			t.Run("inotify="+onOff(on)+"/"+c.name, func(t *testing.T) {
				w := newWarm(t, on)
				reads := w.sc.lastReads
				var changed []string
				remounted := dirwatchtest.Remounted(processNotifier(), func() { changed = w.call(t, func() { c.change(t, w) }) })
				for _, p := range c.want {
					if !slices.Contains(changed, p) {
						t.Errorf("%s not reported: After = %v", p, changed)
					}
				}
				if n := w.sc.lastReads - reads; on && c.name == "plain write deep" {
					switch {
					case remounted: // every directory dirtied: the count proves nothing
						t.Logf("the mount table changed during the call: its %d directories read are not judged", n)
					case n > 2:
						t.Errorf("one file written: Before and After read %d directories", n)
					}
				}
				w.undo(t)
				sameTree(t, tree(t, w.ws), w.before)
				// The cache follows: the next call finds nothing new.
				if again := w.call(t, func() {}); len(again) != 0 {
					t.Errorf("after /undo, a call that changes nothing reports %v", again)
				}
			})
		}
	}
}

// withNotifier runs f with the process's notifier locked out of other
// scans' way: tests that change its state (the budget, a file system's
// verdict) must not run beside other scans.
func notifierOf(t *testing.T) *notifier {
	t.Helper()
	n := processNotifier()
	if n == nil {
		t.Skip("inotify is not available here")
	}
	return n
}

// TestNotifyHardLinkWrittenFromOutside: a file with another link outside
// the workspace can be written through it, which makes no event in any
// directory coder watches; such files are lstat'ed at every scan. The
// second case makes the link during a call, in the workspace: the file it
// links to sits in a directory no event dirtied, so the scan is made again.
func TestNotifyHardLinkWrittenFromOutside(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run("inotify="+onOff(on)+"/linked before", func(t *testing.T) {
			outside := t.TempDir()
			ws := filepath.Join(t.TempDir(), "ws")
			writeFile(t, filepath.Join(ws, "a/b/c/linked.txt"), "before\n")
			must(t, os.Link(filepath.Join(ws, "a/b/c/linked.txt"), filepath.Join(outside, "alias")))
			w := warmAt(t, ws, on)
			changed := w.call(t, func() { writeFile(t, filepath.Join(outside, "alias"), "through the other link\n") })
			if !slices.Equal(changed, []string{"a/b/c/linked.txt"}) {
				t.Fatalf("After = %v", changed)
			}
			w.undo(t)
			sameTree(t, tree(t, ws), w.before)
		})
		t.Run("inotify="+onOff(on)+"/linked in the call", func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "ws")
			writeFile(t, filepath.Join(ws, "a/b/c/linked.txt"), "before\n")
			writeFile(t, filepath.Join(ws, "z/keep"), "z\n")
			w := warmAt(t, ws, on)
			changed := w.call(t, func() {
				must(t, os.Link(filepath.Join(ws, "a/b/c/linked.txt"), filepath.Join(ws, "z/alias")))
				writeFile(t, filepath.Join(ws, "z/alias"), "through the other link\n")
			})
			if !slices.Equal(changed, []string{"a/b/c/linked.txt", "z/alias"}) {
				t.Fatalf("After = %v", changed)
			}
		})
	}
}

// warmAt is newWarm over an existing tree at ws.
func warmAt(t *testing.T, ws string, on bool) *warm {
	t.Helper()
	ageTree(t, ws)
	w := &warm{ws: ws, outside: t.TempDir()}
	w.st, w.id = openStore(t, ws)
	w.sc = NewScanner(ws, ScannerOptions{})
	w.sc.notify = on
	t.Cleanup(func() { releaseTree(w.sc) })
	w.before = tree(t, ws)
	w.call(t, func() {})
	if changed := w.call(t, func() {}); len(changed) != 0 {
		t.Fatalf("nothing changed, yet %v", changed)
	}
	return w
}

// TestNotifyOverflowFallsBackToAWalk: when the kernel's queue overflows,
// the events after it are lost; every directory is then read again, so a
// change whose event was lost is still found.
func TestNotifyOverflowFallsBackToAWalk(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	limit, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || limit <= 0 || limit > 1<<16 {
		t.Skipf("max_queued_events %q: too many events to overflow it in a test", b)
	}
	n := notifierOf(t)
	w := newWarm(t, true)
	n.Lock()
	before := n.Overflows()
	n.Unlock()
	changed := w.call(t, func() {
		noise := filepath.Join(w.ws, "z")
		for i := 0; i < limit/2+16; i++ { // a create and a delete each
			f := filepath.Join(noise, "n"+strconv.Itoa(i))
			writeFile(t, f, "")
			must(t, os.Remove(f))
		}
		writeFile(t, filepath.Join(w.ws, "a/b/c/d/e/deep.txt"), "deep two\n") // its event is lost
	})
	n.Lock()
	overflowed := n.Overflows() > before
	n.Unlock()
	if !overflowed {
		t.Fatal("the queue did not overflow: the test proves nothing")
	}
	if !slices.Equal(changed, []string{"a/b/c/d/e/deep.txt"}) {
		t.Fatalf("after the overflow: %v", changed)
	}
	// Read again, the directories are trusted again: the next call reads
	// only .coder, where the store saved the last call's snapshot.
	if again, reads := w.quietCall(t); len(again) != 0 || reads > 1 {
		t.Errorf("the call after: %v, %d directories read", again, reads)
	}
}

// TestNotifyWatchBudgetFallsBackToAWalk: beyond undo's share of the
// user's inotify watches, directories are read at every scan, and changes
// in them are still found.
func TestNotifyWatchBudgetFallsBackToAWalk(t *testing.T) {
	if b := watchBudget(); b <= 0 || b > maxWatchesAbs {
		t.Fatalf("budget %d", b)
	}
	n := notifierOf(t)
	n.Lock()
	saved := n.Max()
	n.SetMax(n.Len() + 3)
	n.Unlock()
	defer func() { n.Lock(); n.SetMax(saved); n.Unlock() }()
	w := newWarmBudget(t)
	n.Lock()
	over := n.Len() > n.Max()
	n.Unlock()
	if over {
		t.Fatal("more watches than the budget")
	}
	changed := w.call(t, func() { writeFile(t, filepath.Join(w.ws, "a/b/c/d/e/deep.txt"), "deep two\n") })
	if !slices.Equal(changed, []string{"a/b/c/d/e/deep.txt"}) {
		t.Fatalf("After = %v", changed)
	}
	w.undo(t)
	sameTree(t, tree(t, w.ws), w.before)
}

// newWarmBudget is a warm tree made with the budget nearly spent: its
// warm scans read the directories left unwatched, and only those.
func newWarmBudget(t *testing.T) *warm {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	writeTree(t, ws, map[string]string{"a/b/c/d/e/deep.txt": "deep one\n", "a/y/keep": "y\n", "z/keep": "z\n"})
	w := warmAt(t, ws, true)
	if _, n := w.quietCall(t); n == 0 || n >= 2*9 {
		t.Fatalf("a warm call at the budget read %d directories (of 9, twice)", n)
	}
	return w
}

// TestNotifyUnwatchableFileSystemIsWalked: on a file system whose changes
// need not pass through this kernel (NFS, FUSE: here the test's own, or a
// tmpfs mounted in the workspace, so marked) no watch is added: a root on
// one is walked as without inotify, a directory on one below a watched
// root is read at every scan; changes in either are found.
func TestNotifyUnwatchableFileSystemIsWalked(t *testing.T) {
	n := notifierOf(t)
	t.Run("the root", func(t *testing.T) {
		ws := filepath.Join(t.TempDir(), "ws")
		writeTree(t, ws, map[string]string{"a/b/c/d/e/deep.txt": "deep one\n", "z/keep": "z\n"})
		unwatchable(t, n, ws)
		n.Lock()
		watches := n.Len()
		n.Unlock()
		w := warmAt(t, ws, true)
		changed := w.call(t, func() { writeFile(t, filepath.Join(ws, "a/b/c/d/e/deep.txt"), "deep two\n") })
		n.Lock()
		added := n.Len() - watches
		n.Unlock()
		if w.sc.lastReads != 0 || added > 0 {
			t.Errorf("the tree was kept: %d directories read through it, %d watches added", w.sc.lastReads, added)
		}
		if !slices.Equal(changed, []string{"a/b/c/d/e/deep.txt"}) {
			t.Fatalf("After = %v", changed)
		}
	})
	t.Run("a mount below the root", func(t *testing.T) {
		ws := filepath.Join(t.TempDir(), "ws")
		writeTree(t, ws, map[string]string{"a/keep": "a\n", "m/": ""})
		mnt := filepath.Join(ws, "m")
		if err := unix.Mount("coder-undo-test", mnt, "tmpfs", 0, "size=1m"); err != nil {
			t.Skipf("cannot mount here: %v", err)
		}
		t.Cleanup(func() { _ = unix.Unmount(mnt, unix.MNT_DETACH) })
		writeTree(t, mnt, map[string]string{"x/y/deep.txt": "deep one\n"})
		unwatchable(t, n, mnt)
		w := warmAt(t, ws, true)
		reads := w.sc.lastReads
		changed := w.call(t, func() { writeFile(t, filepath.Join(mnt, "x/y/deep.txt"), "deep two\n") })
		if got := w.sc.lastReads - reads; got < 2*3 {
			t.Errorf("a call read %d directories, want the 3 on the mount twice", got)
		}
		if !slices.Equal(changed, []string{"m/x/y/deep.txt"}) {
			t.Fatalf("After = %v", changed)
		}
	})
}

// unwatchable marks the file system of dir as one whose events are
// incomplete, until the test ends.
func unwatchable(t *testing.T, n *notifier, dir string) {
	t.Helper()
	var st unix.Stat_t
	must(t, unix.Stat(dir, &st))
	dev := uint64(st.Dev)
	n.Lock()
	restore := n.MarkDev(dev, false)
	n.Unlock()
	t.Cleanup(func() { n.Lock(); restore(); n.Unlock() })
}

// TestNotifyMountDirtiesEveryDirectory: a mount over a directory of the
// workspace is no inotify event, yet it changes what the path holds; a
// change to the mount table sends every directory to be read again.
// Needs the right to mount (root).
func TestNotifyMountDirtiesEveryDirectory(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run("inotify="+onOff(on), func(t *testing.T) {
			w := newWarm(t, on)
			over := filepath.Join(w.ws, "a/b/c")
			changed := w.call(t, func() {
				if err := unix.Mount("coder-undo-test", over, "tmpfs", 0, "size=1m"); err != nil {
					t.Skipf("cannot mount here: %v", err)
				}
				t.Cleanup(func() { _ = unix.Unmount(over, unix.MNT_DETACH) })
				writeFile(t, filepath.Join(over, "d/e/deep.txt"), "on the mount\n")
			})
			if !slices.Contains(changed, "a/b/c/d/e/deep.txt") || !slices.Contains(changed, "a/b/c/d/f/keep") {
				t.Fatalf("after a mount: %v", changed)
			}
		})
	}
}

// TestNotifyIgnoreRulesFollowTheirFiles: a .gitignore (or
// .git/info/exclude) changed by a call hides nothing that call changed,
// and from the next call on its rules apply: what it ignores is not
// reported, what it stops ignoring is not invented as created.
//
// With "busy", a background task runs during the first two calls: the
// workspace is walked then, and the rules must still follow.
func TestNotifyIgnoreRulesFollowTheirFiles(t *testing.T) {
	for _, mode := range []string{"inotify=on", "inotify=off", "inotify=on/busy"} {
		t.Run(mode, func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "ws")
			writeTree(t, ws, map[string]string{"a/b/x.txt": "x\n", "a/b/y.txt": "y\n", "a/b/z.log": "z\n",
				".git/info/exclude": "", "top.txt": "t\n"})
			w := warmAt(t, ws, true)
			w.sc.notify = mode != "inotify=off"
			step := 0
			if mode == "inotify=on/busy" {
				w.sc.opts.Busy = func() bool { return step < 2 }
			}
			steps := []struct {
				name   string
				change func()
				want   []string
			}{
				{"ignore *.txt below a/b and write x.txt", func() {
					writeFile(t, filepath.Join(ws, "a/b/.gitignore"), "*.txt\n")
					writeFile(t, filepath.Join(ws, "a/b/x.txt"), "x2\n")
				}, []string{"a/b/.gitignore", "a/b/x.txt"}},
				{"write an ignored file", func() {
					writeFile(t, filepath.Join(ws, "a/b/y.txt"), "y2\n")
				}, nil},
				{"stop ignoring", func() {
					must(t, os.Remove(filepath.Join(ws, "a/b/.gitignore")))
				}, []string{"a/b/.gitignore"}},
				{"nothing", func() {}, nil},
				{"write what is no longer ignored", func() {
					writeFile(t, filepath.Join(ws, "a/b/y.txt"), "y3\n")
				}, []string{"a/b/y.txt"}},
				{"exclude *.log, between calls", func() {}, nil},
				{"write an excluded file", func() {
					writeFile(t, filepath.Join(ws, "a/b/z.log"), "z2\n")
				}, nil},
			}
			for i, s := range steps {
				step = i
				changed := w.call(t, s.change)
				if !slices.Equal(changed, s.want) {
					t.Fatalf("%s: After = %v, want %v", s.name, changed, s.want)
				}
				if s.name == "exclude *.log, between calls" {
					writeFile(t, filepath.Join(ws, ".git/info/exclude"), "*.log\n")
				}
			}
		})
	}
}

// TestNotifyBusyTrustsNoEvent: while a process may run outside calls (a
// background task), a write through a mapping it still holds makes no
// event, so every directory is read; the write is found.
func TestNotifyBusyTrustsNoEvent(t *testing.T) {
	w := newWarm(t, true)
	w.sc.opts.Busy = func() bool { return true }
	var child *exec.Cmd
	changed := w.call(t, func() {
		child = exec.Command(os.Args[0], "-test.run=^$")
		child.Env = append(os.Environ(), mmapEnv+"="+filepath.Join(w.ws, "a/b/x/mapped.bin")+":MAPPED:wait")
		stdin, err := child.StdinPipe()
		must(t, err)
		out, err := child.StdoutPipe()
		must(t, err)
		must(t, child.Start())
		t.Cleanup(func() { stdin.Close(); _ = child.Wait() })
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "mapped\n" {
			t.Fatalf("child: %q, %v", line, err)
		}
	})
	if !slices.Equal(changed, []string{"a/b/x/mapped.bin"}) {
		t.Fatalf("a write through a mapping still held: After = %v", changed)
	}
}
