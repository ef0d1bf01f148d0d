//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardRestoresProtectedPathsWithoutNamespaces: under Landlock alone
// the protected paths are writable during the call, and the Guard puts
// every one back and says so; git add and commit still work.
func TestGuardRestoresProtectedPathsWithoutNamespaces(t *testing.T) {
	for _, l := range levels(t, LevelNone) {
		if l == LevelFull {
			continue
		}
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			gitRepo(t, w.ws)
			p := w.profile(l)
			before := protectedHash(t, w.ws)
			for _, script := range protectedAttacks {
				g, err := Watch(p)
				if err != nil {
					t.Fatal(err)
				}
				r := run(t, p, script)
				changes, err := g.Restore()
				if err != nil {
					t.Fatalf("%s: restore: %v", script, err)
				}
				if protectedHash(t, w.ws) != before {
					t.Fatalf("%s: a protected path was not restored (%q): %+v", script, changes, r)
				}
				if len(changes) == 0 && r.code == 0 {
					t.Errorf("%s: succeeded but no change was reported", script)
				}
			}
			g, _ := Watch(p)
			r := run(t, p, `echo change > file.txt && git add file.txt && git commit -qm sandboxed`)
			if changes, _ := g.Restore(); r.code != 0 || len(changes) != 0 {
				t.Fatalf("positive control: git add + commit: %+v, restored %q", r, changes)
			}
		})
	}
}

// TestGuardRemovesCreatedProtectedPaths: mounts protect only what exists;
// a control entry the command creates is moved aside after the call (kept
// beside, under a name nothing obeys), while coder's own state written
// meanwhile stays.
func TestGuardRemovesCreatedProtectedPaths(t *testing.T) {
	for _, l := range levels(t, LevelNone) {
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			p := w.profile(l)
			g, err := Watch(p)
			if err != nil {
				t.Fatal(err)
			}
			r := run(t, p, `echo '{"mcpServers":{}}' > .mcp.json && mkdir -p .coder .git/hooks && echo '{}' > .coder/config.json && echo x > .git/hooks/pre-commit`)
			writeTestFile(t, filepath.Join(w.ws, ".coder/sessions/s1.json"), "{}") // coder, meanwhile
			writeTestFile(t, filepath.Join(w.ws, ".coder/coder.db"), "db")
			changes, err := g.Restore()
			if err != nil {
				t.Fatal(err)
			}
			for _, rel := range []string{".mcp.json", ".coder/config.json", ".git/hooks/pre-commit"} {
				if _, err := os.Lstat(filepath.Join(w.ws, rel)); err == nil {
					t.Errorf("%s created by the command survived (%q, %+v)", rel, changes, r)
				}
			}
			for _, rel := range []string{".coder/sessions/s1.json", ".coder/coder.db"} {
				if _, err := os.Stat(filepath.Join(w.ws, rel)); err != nil {
					t.Errorf("coder's own %s was removed", rel)
				}
			}
			if !strings.Contains(strings.Join(changes, "\n"), "moved .mcp.json aside to .mcp.json"+movedMark) {
				t.Errorf("changes: %q", changes)
			}
		})
	}
}

// TestGuardUndoesEachKindOfChange without a sandbox: content, mode,
// deletion, creation, a file turned into a symlink or a directory.
func TestGuardUndoesEachKindOfChange(t *testing.T) {
	ws := t.TempDir()
	gitRepo(t, ws)
	writeTestFile(t, filepath.Join(ws, ".git/hooks/sub/deep"), "deep\n")
	p := Profile{Workspace: ws, Level: LevelNone}
	before := protectedHash(t, ws)
	changes := []func() error{
		func() error { return os.WriteFile(filepath.Join(ws, ".git/config"), []byte("evil"), 0o644) },
		func() error { return os.Chmod(filepath.Join(ws, ".git/hooks/post-commit"), 0o755) },
		func() error { return os.Remove(filepath.Join(ws, ".mcp.json")) },
		func() error { return os.WriteFile(filepath.Join(ws, ".git/hooks/pre-push"), []byte("evil"), 0o755) },
		func() error {
			_ = os.Remove(filepath.Join(ws, ".mcp.json"))
			return os.Symlink("/etc/passwd", filepath.Join(ws, ".mcp.json"))
		},
		func() error {
			_ = os.Remove(filepath.Join(ws, ".coder/config.json"))
			return os.Mkdir(filepath.Join(ws, ".coder/config.json"), 0o755)
		},
		func() error { return os.RemoveAll(filepath.Join(ws, ".git/hooks")) },
		func() error {
			_ = os.RemoveAll(filepath.Join(ws, ".git/hooks/sub"))
			return os.Symlink(t.TempDir(), filepath.Join(ws, ".git/hooks/sub"))
		},
	}
	for i, change := range changes {
		g, err := Watch(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := change(); err != nil {
			t.Fatal(err)
		}
		got, err := g.Restore()
		if err != nil || len(got) == 0 {
			t.Fatalf("change %d: restore %q %v", i, got, err)
		}
		if protectedHash(t, ws) != before {
			t.Fatalf("change %d not undone (%q)", i, got)
		}
	}
}

// TestGuardWritesNothingThroughASymlinkedParent: if .git itself became a
// symlink to a directory outside (the repository renamed beside it), the
// Guard moves the symlink aside and puts the repository back, writing
// nothing outside.
func TestGuardWritesNothingThroughASymlinkedParent(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	gitRepo(t, ws)
	writeTestFile(t, filepath.Join(outside, "config"), "outside\n")
	before := treeHash(t, outside)
	g, err := Watch(Profile{Workspace: ws, Level: LevelNone})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := os.Rename(filepath.Join(ws, ".git"), filepath.Join(ws, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, ".git")); err != nil {
		t.Fatal(err)
	}
	changes, err := g.Restore()
	if err != nil {
		t.Fatalf("restore: %q %v", changes, err)
	}
	if fi, err := os.Lstat(filepath.Join(ws, ".git")); err != nil || !fi.IsDir() {
		t.Errorf("the repository was not put back: %q", changes)
	}
	if treeHash(t, outside) != before {
		t.Errorf("the guard wrote outside")
	}
}

func TestGuardWatchesNothingInPlanMode(t *testing.T) {
	ws := t.TempDir()
	gitRepo(t, ws)
	g, err := Watch(Profile{Workspace: ws, Policy: ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte("x"), 0o644)
	if changes, err := g.Restore(); err != nil || len(changes) != 0 {
		t.Errorf("plan-mode guard acted: %q %v", changes, err)
	}
}

// TestGuardAcceptKeepsCodersOwnChange: a change coder itself makes to a
// protected path while a command runs (an approval remembered in
// .coder/config.json) survives Restore; one made beside it does not.
func TestGuardAcceptKeepsCodersOwnChange(t *testing.T) {
	w := newWorld(t)
	cfg := filepath.Join(w.ws, ".coder", "config.json")
	writeTestFile(t, cfg, "{}\n")
	g, err := Watch(w.profile(LevelNone))
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, cfg, `{"permission":{"bash":[{"pattern":"make","action":"allow"}]}}`+"\n")
	if err := g.Accept(cfg); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(w.ws, ".coder", "planted.json"), "{}\n")
	if err := g.Accept(filepath.Join(w.outside, "keep")); err != nil { // not protected: ignored
		t.Fatal(err)
	}
	changes, err := g.Restore()
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(cfg); !strings.Contains(string(b), "make") {
		t.Fatalf("the accepted change was undone: %q (%q)", b, changes)
	}
	if _, err := os.Stat(filepath.Join(w.ws, ".coder", "planted.json")); err == nil || len(changes) != 1 {
		t.Fatalf("the other change survived: %q", changes)
	}
}
