package undo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSessionDiff(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{
		"a.go": "package a\n\nfunc A() {}\n", "old.txt": "old\n", "same.txt": "same\n",
		"bin": "\x00\x01", "mode.sh": "echo\n",
	})
	st, id := openStore(t, ws)

	// Turn 1 captures everything; turn 2 captures a.go again, mid-way: the
	// diff must start from turn 1's (the oldest) content.
	t1 := NewTurn(st, id, 1, ws)
	for _, p := range []string{"a.go", "old.txt", "new.txt", "same.txt", "bin", "mode.sh"} {
		must(t, t1.Capture(filepath.Join(ws, p), "", nil))
	}
	writeTree(t, ws, map[string]string{"a.go": "package a\n\nfunc B() {}\n", "new.txt": "new\n", "bin": "\x00\x02"})
	must(t, os.Remove(filepath.Join(ws, "old.txt")))
	must(t, os.Chmod(filepath.Join(ws, "mode.sh"), 0o755))
	must(t, NewTurn(st, id, 2, ws).Capture(filepath.Join(ws, "a.go"), "", nil))
	writeTree(t, ws, map[string]string{"a.go": "package a\n\nfunc C() {}\nfunc D() {}\n"})

	summary, diff, err := SessionDiff(ctx, st, id, ws)
	must(t, err)
	want := "5 files changed: M a.go (+2 -1), M bin, M mode.sh (mode 0644 -> 0755), A new.txt, D old.txt"
	if summary != want {
		t.Errorf("summary = %q\nwant      %q", summary, want)
	}
	for _, s := range []string{
		"diff --git a/a.go b/a.go\n--- a/a.go\n+++ b/a.go\n", "-func A() {}\n+func C() {}\n+func D() {}\n",
		"Binary files a/bin and b/bin differ\n", "old mode -rw-r--r--\nnew mode -rwxr-xr-x\n",
		"--- /dev/null\n+++ b/new.txt\n", "+new\n", "--- a/old.txt\n+++ /dev/null\n", "-old\n",
	} {
		if !strings.Contains(diff, s) {
			t.Errorf("diff lacks %q:\n%s", s, diff)
		}
	}
	if strings.Contains(diff, "same.txt") {
		t.Errorf("unchanged file in the diff:\n%s", diff)
	}
}

func TestSessionDiffNothing(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	st, id := openStore(t, ws)
	summary, diff, err := SessionDiff(context.Background(), st, id, ws)
	if err != nil || summary != "no changes" || diff != "" {
		t.Errorf("SessionDiff = %q, %q, %v", summary, diff, err)
	}
}

func TestGitDiff(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	plain := t.TempDir()
	if _, _, ok, err := GitDiff(ctx, plain); ok || err != nil {
		t.Errorf("GitDiff outside a repository = ok %v, %v", ok, err)
	}

	repo := t.TempDir()
	writeTree(t, repo, map[string]string{"a.txt": "one\n", "sub/b.txt": "b\n", ".gitignore": "*.log\n"})
	git := func(args ...string) {
		t.Helper()
		args = append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	summary, _, ok, err := GitDiff(ctx, repo) // no commit yet
	if !ok || err != nil || !strings.Contains(summary, "untracked: .gitignore, a.txt, sub/b.txt") {
		t.Errorf("GitDiff before the first commit = %q, %v, %v", summary, ok, err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "init")
	writeTree(t, repo, map[string]string{"a.txt": "one\ntwo\n", "u.txt": "u\n", "x.log": "ignored"})

	summary, diff, ok, err := GitDiff(ctx, repo)
	if !ok || err != nil {
		t.Fatalf("GitDiff = ok %v, %v", ok, err)
	}
	for _, s := range []string{"a.txt | 1 +", "1 file changed, 1 insertion(+)", "untracked: u.txt"} {
		if !strings.Contains(summary, s) {
			t.Errorf("summary lacks %q:\n%s", s, summary)
		}
	}
	if !strings.Contains(diff, "+two\n") || strings.Contains(summary, "x.log") {
		t.Errorf("diff = %s\nsummary = %s", diff, summary)
	}

	// In a subdirectory, only its changes count, relative to it.
	writeTree(t, repo, map[string]string{"sub/b.txt": "b2\n"})
	summary, diff, _, err = GitDiff(ctx, filepath.Join(repo, "sub"))
	if err != nil || !strings.Contains(summary, "b.txt | 2 +-") || strings.Contains(summary, "a.txt") || strings.Contains(diff, "a.txt") {
		t.Errorf("GitDiff of sub = %q, %v\n%s", summary, err, diff)
	}
}
