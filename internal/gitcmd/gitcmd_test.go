package gitcmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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
	plainGitRuns(t, dir, marker, "the fsmonitor")
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

// nestedFilterRepo is the second red team's reproduction: vendor/lib is a
// repository of its own whose configuration names a clean filter for every
// file, added to the outer one as a gitlink and left stat-dirty, with a
// .gitmodules that asks for the nested repository to be looked into.
func nestedFilterRepo(t *testing.T) (dir, marker string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir = t.TempDir()
	marker = filepath.Join(t.TempDir(), "ran")
	lib := filepath.Join(dir, "vendor", "lib")
	git := func(in string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=n"}, args...)...)
		cmd.Dir = in
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(dir, "init", "-q")
	write(filepath.Join(dir, "a.txt"), "hello\n")
	write(filepath.Join(lib, "f.txt"), "lib\n")
	write(filepath.Join(lib, ".gitattributes"), "* filter=evil\n")
	git(lib, "init", "-q")
	git(lib, "add", ".")
	git(lib, "commit", "-qm", "lib")
	f, err := os.OpenFile(filepath.Join(lib, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "[filter \"evil\"]\n\tclean = touch %s; cat\n", marker)
	f.Close()
	write(filepath.Join(dir, ".gitmodules"), "[submodule \"lib\"]\n\tpath = vendor/lib\n\turl = ./lib\n\tignore = none\n")
	git(dir, "add", "a.txt", ".gitmodules", "vendor/lib")
	git(dir, "commit", "-qm", "init")
	write(filepath.Join(dir, "a.txt"), "changed\n")
	return dir, marker
}

// stir makes the nested repository's files stat-dirty, as the attack
// leaves them, so a git that looks inside must run the filter.
func stir(t *testing.T, dir string) {
	t.Helper()
	now := time.Now().Add(time.Second)
	if err := os.Chtimes(filepath.Join(dir, "vendor", "lib", "f.txt"), now, now); err != nil {
		t.Fatal(err)
	}
}

func TestNestedRepositoryProgramsDoNotRun(t *testing.T) {
	dir, marker := nestedFilterRepo(t)
	ctx := context.Background()
	for _, args := range [][]string{
		{"status", "--porcelain=v1", "--branch"},
		{"diff", "--no-color", "--stat", "HEAD"},
		{"diff", "HEAD"},
		{"log", "-1", "-p"},
		{"ls-files", "--others", "--exclude-standard", "-z"},
	} {
		stir(t, dir)
		out, err := Output(ctx, dir, nil, args...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("git %v ran the nested repository's filter", args)
		}
		// Positive control: the outer repository's own change is seen.
		if args[0] != "ls-files" && args[0] != "log" && !strings.Contains(out, "a.txt") {
			t.Fatalf("git %v did not see a.txt: %q", args, out)
		}
	}
	stir(t, dir)
	plainGitRuns(t, dir, marker, "the nested filter")
}

func TestOnlyReadOnlyCommandsRun(t *testing.T) {
	for _, args := range [][]string{{"commit", "-m", "x"}, {"submodule", "update"}, {"-c", "core.fsmonitor=x", "status"}, {}} {
		if _, err := Command(context.Background(), t.TempDir(), nil, args...); err == nil {
			t.Errorf("git %v was allowed", args)
		}
	}
}

// A driver whose name holds "=" ([filter "x=y"]) cannot be switched off
// with `-c filter.x=y.clean=` (git splits at the first "="): the overrides
// go through the environment, which keeps key and value apart.
func TestDriverNamedWithAnEqualsSignDoesNotRun(t *testing.T) {
	dir, marker := evilRepo(t)
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("* filter=x=y diff=x=y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"filter.x=y.clean", "touch " + marker + "; cat"}, {"diff.x=y.textconv", "touch " + marker + "; cat"}} {
		cmd := exec.Command("git", "config", kv[0], kv[1])
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v %s", err, out)
		}
	}
	for _, args := range [][]string{{"diff"}, {"status", "--porcelain"}, {"diff", "HEAD", "--stat"}} {
		out, err := Output(context.Background(), dir, nil, args...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("git %v ran the driver named with \"=\"", args)
		}
		if !strings.Contains(out, "a.txt") {
			t.Fatalf("git %v: %q", args, out)
		}
	}
	cmd := exec.Command("git", "-c", "filter.x=y.clean=", "-c", "core.fsmonitor=false", "diff")
	cmd.Dir = dir
	_ = cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("control: -c did switch the driver off, so the test proves nothing")
	}
}

// The person's own GIT_CONFIG_COUNT settings are kept, before coder's.
func TestConfigFromTheEnvironmentIsKept(t *testing.T) {
	got := withConfig([]string{"A=1", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=me"},
		[]setting{{"core.fsmonitor", "false"}})
	want := []string{"A=1", "GIT_CONFIG_KEY_0=user.name", "GIT_CONFIG_VALUE_0=me",
		"GIT_CONFIG_KEY_1=core.fsmonitor", "GIT_CONFIG_VALUE_1=false", "GIT_CONFIG_COUNT=2"}
	if !slices.Equal(got, want) {
		t.Fatalf("%q", got)
	}
}

// plainGitRuns is the positive control of the tests above: a plain `git
// status` in dir does run what the repository configures (what), leaving
// marker, so coder's not running it proves something.
func plainGitRuns(t *testing.T, dir, marker, what string) {
	t.Helper()
	cmd := exec.Command("git", "status")
	cmd.Dir = dir
	_ = cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("control: plain git did not run %s either, so the test proves nothing", what)
	}
}
