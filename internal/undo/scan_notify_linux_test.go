package undo

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

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
	reads := w.sc.lastReads
	if changed := w.call(t, func() {}); len(changed) != 0 {
		t.Fatalf("nothing changed, yet %v", changed)
	}
	if warm := w.sc.lastReads - reads; on && warm != 0 {
		t.Fatalf("warm Before and After read %d directories", warm)
	}
	return w
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

// ageTree sets every mtime under root an hour back: past the racy window,
// so a file is trusted by its stat (or, with inotify, its directory's
// silence) and not compared by content.
func ageTree(t testing.TB, root string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	must(t, filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	}))
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
				changed := w.call(t, func() { c.change(t, w) })
				for _, p := range c.want {
					if !slices.Contains(changed, p) {
						t.Errorf("%s not reported: After = %v", p, changed)
					}
				}
				if on && c.name == "plain write deep" {
					if n := w.sc.lastReads - reads; n > 2 {
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
