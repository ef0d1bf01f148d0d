package gitcmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A repository whose configuration names programs everywhere git could run
// one during status and diff; a marker file shows whether any ran.
func evilRepo(t *testing.T) (dir, marker string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir = t.TempDir()
	marker = filepath.Join(t.TempDir(), "ran")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "a.txt")
	run("-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "init")
	touch := "touch " + marker
	for k, v := range map[string]string{
		"core.fsmonitor": touch + "; false", "filter.evil.clean": touch + "; cat", "filter.evil.process": touch,
		"diff.evil.textconv": touch + "; cat", "diff.evil.command": touch, "diff.external": touch, "core.pager": touch,
	} {
		run("config", k, v)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("* filter=evil diff=evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, marker
}

func TestRepositoryProgramsDoNotRun(t *testing.T) {
	dir, marker := evilRepo(t)
	ctx := context.Background()
	status, err := Output(ctx, dir, nil, "status", "--porcelain=v1", "--branch")
	if err != nil {
		t.Fatal(err)
	}
	diff, err := Output(ctx, dir, nil, "diff", "--no-color", "--stat", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	full, err := Output(ctx, dir, nil, "diff", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a program from the repository's configuration ran")
	}
	// Positive control: git still works, and the same repository does run
	// the program for a plain git.
	if !strings.Contains(status, "M a.txt") || !strings.Contains(diff, "a.txt") || !strings.Contains(full, "+changed") {
		t.Fatalf("status %q, diff %q, full %q", status, diff, full)
	}
	cmd := exec.Command("git", "status")
	cmd.Dir = dir
	_ = cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the control failed: plain git did not run the fsmonitor either, so the test proves nothing")
	}
}

func TestSecretsStayOutOfGitsEnvironment(t *testing.T) {
	t.Setenv("SOME_API_KEY", "sk-secret-value-123")
	for _, kv := range env([]string{"sk-secret-value-123"}) {
		if strings.Contains(kv, "sk-secret-value-123") {
			t.Fatalf("%s passed to git", kv)
		}
	}
}

func TestOutsideARepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if _, err := Output(context.Background(), t.TempDir(), nil, "rev-parse", "--is-inside-work-tree"); err == nil {
		t.Fatal("rev-parse outside a repository succeeded")
	}
}
