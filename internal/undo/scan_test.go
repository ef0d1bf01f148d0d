package undo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// scannerMaker makes a Scanner with inotify on or off, as bothModes runs.
type scannerMaker func(root string, opts ScannerOptions) *Scanner

// bothModes runs a test of the Scanner with inotify on and off
// (notify_linux.go), in parallel with other tests.
func bothModes(t *testing.T, f func(t *testing.T, newScanner scannerMaker)) {
	t.Parallel()
	for _, on := range []bool{true, false} {
		t.Run("inotify="+onOff(on), func(t *testing.T) {
			t.Parallel()
			f(t, func(root string, opts ScannerOptions) *Scanner {
				sc := NewScanner(root, opts)
				sc.notify = on
				t.Cleanup(func() { releaseTree(sc) })
				return sc
			})
		})
	}
}

// bashTurn runs script in ws between Before and After, recording into turn.
func bashTurn(t *testing.T, sc *Scanner, turn *Turn, ws, script string) (changed, notCaptured []string) {
	t.Helper()
	ctx := context.Background()
	m, err := sc.Before(ctx)
	must(t, err)
	runBash(t, ws, script)
	changed, notCaptured, err = sc.After(ctx, m, turn)
	must(t, err)
	return changed, notCaptured
}

func TestScannerBashChanges(t *testing.T) {
	bothModes(t, func(t *testing.T, newScanner scannerMaker) {
		ws := t.TempDir()
		writeTree(t, ws, map[string]string{
			"f.txt":          "aaa\r\nabc\n",
			"gone.txt":       "gone\n",
			"touched.txt":    "same\n",
			".gitignore":     "*.log\nbuild/\n",
			"sub/.gitignore": "secret\n",
			"sub/secret":     "s1",
			"x.log":          "log1",
			"build/out":      "o1",
			"old/inner/z":    "z",
		})
		st, id := openStore(t, ws) // .coder/coder.db changes during the turn
		want := tree(t, ws)
		sc := newScanner(ws, ScannerOptions{})
		turn := NewTurn(st, id, 1, ws)

		ctx := context.Background()
		m, err := sc.Before(ctx)
		must(t, err)
		runBash(t, ws, `sed -i 's/a/b/' f.txt; echo new > n.txt; rm gone.txt
			echo changed > x.log; echo o2 > build/out; echo s2 > sub/secret; touch touched.txt
			rm -r old; mkdir -p made/deep; echo m > made/deep/m.txt`)
		// coder writes its session state meanwhile; it must not be captured.
		s, err := st.Load(ctx, id)
		must(t, err)
		s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: "hi"})
		must(t, st.Checkpoint(ctx, s))
		changed, notCaptured, err := sc.After(ctx, m, turn)
		must(t, err)
		wantChanged := []string{"f.txt", "gone.txt", "made/", "made/deep/", "made/deep/m.txt", "n.txt", "old/", "old/inner/", "old/inner/z"}
		if !slices.Equal(changed, wantChanged) || len(notCaptured) != 0 {
			t.Errorf("After = %v, %v; want %v, none", changed, notCaptured, wantChanged)
		}
		restored := restoreTurn(t, st, id, 1, ws)
		for _, ignored := range []string{"x.log", "build/out", "sub/secret"} {
			if slices.Contains(restored, ignored) {
				t.Errorf("ignored %s was restored", ignored)
			}
		}
		want["x.log"], want["build/out"], want["sub/secret"] = "-rw-r--r-- changed\n", "-rw-r--r-- o2\n", "-rw-r--r-- s2\n"
		sameTree(t, tree(t, ws), want)
	})
}

func TestScannerTypeChanges(t *testing.T) {
	bothModes(t, func(t *testing.T, newScanner scannerMaker) {
		ws := t.TempDir()
		writeTree(t, ws, map[string]string{"f": "file", "d/x": "x", "l": "l"})
		must(t, os.Symlink("f", filepath.Join(ws, "link")))
		want := tree(t, ws)
		st, id := openStore(t, ws)
		changed, _ := bashTurn(t, newScanner(ws, ScannerOptions{}), NewTurn(st, id, 1, ws), ws,
			"rm f && mkdir f && echo y > f/y; rm -r d && echo now-a-file > d; ln -sfn d link; rm l && ln -s f l")
		wantChanged := []string{"d", "d/", "d/x", "f", "f/", "f/y", "l", "link"}
		if !slices.Equal(changed, wantChanged) {
			t.Errorf("changed = %v, want %v", changed, wantChanged)
		}
		restoreTurn(t, st, id, 1, ws)
		sameTree(t, tree(t, ws), want)
	})
}

func TestScannerCacheFollowsEdits(t *testing.T) {
	bothModes(t, func(t *testing.T, newScanner scannerMaker) {
		ws := t.TempDir()
		writeTree(t, ws, map[string]string{"f.txt": "one\n", "g.txt": "g\n"})
		st, id := openStore(t, ws)
		sc := newScanner(ws, ScannerOptions{})
		bashTurn(t, sc, NewTurn(st, id, 1, ws), ws, "echo two > f.txt")

		// Turn 2: a file tool writes (captured by Capture), then two commands.
		turn := NewTurn(st, id, 2, ws)
		must(t, turn.Capture(filepath.Join(ws, "f.txt"), "", nil))
		writeTree(t, ws, map[string]string{"f.txt": "three\n"})
		bashTurn(t, sc, turn, ws, "echo four > f.txt; chmod 600 g.txt")
		changed, _ := bashTurn(t, sc, turn, ws, "echo five > f.txt")
		if !slices.Equal(changed, []string{"f.txt"}) {
			t.Errorf("changed = %v", changed)
		}
		restoreTurn(t, st, id, 2, ws)
		sameTree(t, tree(t, ws), map[string]string{"f.txt": "-rw-r--r-- two\n", "g.txt": "-rw-r--r-- g\n"})
		restoreTurn(t, st, id, 1, ws)
		sameTree(t, tree(t, ws), map[string]string{"f.txt": "-rw-r--r-- one\n", "g.txt": "-rw-r--r-- g\n"})
	})
}

// A same-size rewrite right after Before may keep the mtime on a coarse
// clock; the racy check compares content instead of trusting the stat.
func TestScannerSameSizeRewrite(t *testing.T) {
	bothModes(t, func(t *testing.T, newScanner scannerMaker) {
		ws := t.TempDir()
		writeTree(t, ws, map[string]string{"f": "aaa"})
		st, id := openStore(t, ws)
		sc := newScanner(ws, ScannerOptions{})
		changed, _ := bashTurn(t, sc, NewTurn(st, id, 1, ws), ws, "printf bbb 1<> f")
		if !slices.Equal(changed, []string{"f"}) {
			t.Errorf("changed = %v", changed)
		}
		restoreTurn(t, st, id, 1, ws)
		sameTree(t, tree(t, ws), map[string]string{"f": "-rw-r--r-- aaa"})
	})
}

func TestScannerNotCaptured(t *testing.T) {
	bothModes(t, func(t *testing.T, newScanner scannerMaker) {
		ws := t.TempDir()
		writeTree(t, ws, map[string]string{"big": strings.Repeat("x", 100), "small": "s"})
		st, id := openStore(t, ws)
		sc := newScanner(ws, ScannerOptions{MaxFileSize: 10})
		changed, notCaptured := bashTurn(t, sc, NewTurn(st, id, 1, ws), ws, "echo y > big; echo t > small")
		if !slices.Equal(changed, []string{"big", "small"}) || !slices.Equal(notCaptured, []string{"big"}) {
			t.Errorf("After = %v, %v", changed, notCaptured)
		}
		es, err := st.LoadUndo(context.Background(), id, 1)
		must(t, err)
		restored, problems, err := Restore(context.Background(), es, ws)
		must(t, err)
		if !slices.Equal(restored, []string{"small"}) || len(problems) != 1 || !strings.Contains(problems[0], "larger than 10 bytes") {
			t.Errorf("Restore = %v, %v", restored, problems)
		}
	})
}

func TestScannerTooManyFiles(t *testing.T) {
	bothModes(t, func(t *testing.T, newScanner scannerMaker) {
		ws := t.TempDir()
		writeTree(t, ws, fileCount(20))
		sc := newScanner(ws, ScannerOptions{MaxFiles: 10})
		if _, err := sc.Before(context.Background()); !errors.Is(err, ErrTooManyFiles) {
			t.Errorf("Before = %v; want ErrTooManyFiles", err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := newScanner(ws, ScannerOptions{}).Before(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Before with a cancelled context = %v", err)
		}
	})
}

func TestScannerCacheLimit(t *testing.T) {
	bothModes(t, func(t *testing.T, newScanner scannerMaker) {
		ws := t.TempDir()
		writeTree(t, ws, fileCount(50))
		sc := newScanner(ws, ScannerOptions{MaxTotal: 2000})
		m, err := sc.Before(context.Background())
		must(t, err)
		if sc.total > 2000 || len(m.missed) == 0 || len(sc.cache)+len(m.missed) != 50 {
			t.Errorf("cache holds %d bytes in %d files, %d missed; want at most 2000 bytes", sc.total, len(sc.cache), len(m.missed))
		}
		if err := os.Remove(filepath.Join(ws, "pkg000", "file00000.go")); err != nil {
			t.Fatal(err)
		}
		if _, err := sc.Before(context.Background()); err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, c := range sc.cache {
			sum += int64(len(c.data))
		}
		if sum != sc.total {
			t.Errorf("total = %d, cached bytes = %d", sc.total, sum)
		}
	})
}

// The rules of an enclosing repository count, unless they ignore the
// workspace itself.
func TestScannerParentRules(t *testing.T) {
	bothModes(t, func(t *testing.T, newScanner scannerMaker) {
		repo := t.TempDir()
		writeTree(t, repo, map[string]string{".git/HEAD": "", ".gitignore": "*.tmp\nscratch/\n", ".git/info/exclude": "*.local\n"})
		for _, c := range []struct {
			ws   string
			want []string
		}{
			{"sub", []string{"a.go"}},
			{"scratch", []string{"a.go", "b.tmp", "c.local"}},
		} {
			ws := filepath.Join(repo, c.ws)
			writeTree(t, ws, map[string]string{"x": ""})
			changed, _ := bashTurn(t, newScanner(ws, ScannerOptions{}), nil, ws, "touch a.go b.tmp c.local")
			if !slices.Equal(changed, c.want) {
				t.Errorf("%s: changed = %v, want %v", c.ws, changed, c.want)
			}
		}
	})
}
