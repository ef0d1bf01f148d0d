package gitcmd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// loggedGit puts a git first on PATH that notes each command line in a log
// and runs the real git; it returns the log's path.
func loggedGit(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "log")
	script := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// plainRepo is a committed repository with a changed a.txt and the
// settings a clone has (a remote, a branch that merges from it).
func plainRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q"},
		{"config", "remote.origin.url", "https://example.com/x.git"},
		{"config", "branch.main.merge", "refs/heads/main"},
	} {
		gitIn(t, dir, args...)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", "a.txt")
	gitIn(t, dir, "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "init")
	// Same size, new content: git must read it (through any filter) to
	// tell.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("jello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

func listed(t *testing.T, log string) bool {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), "config --list")
}

// A repository that defines no driver costs one git process: the status
// itself, with the fixed settings on its command line.
func TestDriverFreeRepositoryRunsOneGit(t *testing.T) {
	log := loggedGit(t)
	dir := plainRepo(t)
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	out, err := Output(context.Background(), dir, nil, "status", "--porcelain=v1", "--branch")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "M a.txt") {
		t.Fatalf("status %q", out)
	}
	b, _ := os.ReadFile(log)
	if strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), "core.fsmonitor=false") {
		t.Fatalf("git ran as:\n%s", b)
	}
	// Control: a driver section brings the listing back.
	gitIn(t, dir, "config", "filter.x.clean", "cat")
	if _, err := Output(context.Background(), dir, nil, "status"); err != nil {
		t.Fatal(err)
	}
	if !listed(t, log) {
		t.Fatal("a repository with a filter was not listed")
	}
}

// Every way of writing a driver that git reads is found, and the driver
// does not run; plain git runs each one (the control).
func TestDriversWrittenAnyWayDoNotRun(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	write := func(t *testing.T, path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(content); err != nil {
			t.Fatal(err)
		}
	}
	for name, plant := range map[string]func(t *testing.T, dir, driver string){
		"upper case": func(t *testing.T, dir, driver string) {
			write(t, filepath.Join(dir, ".git", "config"), "[FILTER \"evil\"]\n"+driver)
		},
		"dotted section": func(t *testing.T, dir, driver string) {
			write(t, filepath.Join(dir, ".git", "config"), "[Filter.evil]\n"+driver)
		},
		"include": func(t *testing.T, dir, driver string) {
			write(t, filepath.Join(dir, ".git", "more"), "[filter \"evil\"]\n"+driver)
			write(t, filepath.Join(dir, ".git", "config"), "[Include]\n\tpath = more\n")
		},
		"includeIf": func(t *testing.T, dir, driver string) {
			write(t, filepath.Join(dir, ".git", "more"), "[filter \"evil\"]\n"+driver)
			write(t, filepath.Join(dir, ".git", "config"), "[includeIf \"gitdir:/\"]\n\tpath = more\n")
		},
		"worktree config": func(t *testing.T, dir, driver string) {
			write(t, filepath.Join(dir, ".git", "config"), "[extensions]\n\tworktreeConfig = true\n")
			write(t, filepath.Join(dir, ".git", "config.worktree"), "[filter \"evil\"]\n"+driver)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := plainRepo(t)
			marker := filepath.Join(t.TempDir(), "ran")
			gitIn(t, dir, "config", "core.repositoryformatversion", "1")
			write(t, filepath.Join(dir, ".gitattributes"), "* filter=evil\n")
			plant(t, dir, "\tclean = touch "+marker+"; cat\n")
			if driverFree(dir) {
				t.Fatal("the driver was not seen")
			}
			out, err := Output(context.Background(), dir, nil, "status", "--porcelain=v1")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the repository's filter ran")
			}
			if !strings.Contains(out, "a.txt") {
				t.Fatalf("status %q", out)
			}
			plainGitRuns(t, dir, marker, "the filter")
		})
	}
}

// What could send git to a configuration file the scan does not read makes
// it list the configuration instead.
func TestDriverFreeDefersWhereGitMayLookElsewhere(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	t.Run("plain", func(t *testing.T) {
		if !driverFree(plainRepo(t)) {
			t.Fatal("a plain repository was not driver-free (the cases below prove nothing)")
		}
	})
	t.Run("GIT_DIR", func(t *testing.T) {
		dir := plainRepo(t)
		t.Setenv("GIT_DIR", filepath.Join(dir, ".git"))
		if driverFree(dir) {
			t.Fatal("driver-free with GIT_DIR set")
		}
	})
	t.Run("through a link", func(t *testing.T) {
		dir := plainRepo(t)
		if err := os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[filter \"x\"]\n\tclean = cat\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, "sub")
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(t.TempDir(), "ws")
		if err := os.Symlink(sub, link); err != nil {
			t.Fatal(err)
		}
		if driverFree(link) {
			t.Fatal("driver-free through a link into a repository with a filter")
		}
	})
	for name, make := range map[string]func(dir string) error{
		"gitfile": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "sub", ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
		},
		"commondir": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ".git", "commondir"), []byte("/elsewhere\n"), 0o644)
		},
		"bare HEAD": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "sub", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		},
		"parent's driver": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[filter \"x\"]\n\tclean = cat\n"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := plainRepo(t)
			sub := filepath.Join(dir, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := make(dir); err != nil {
				t.Fatal(err)
			}
			if driverFree(sub) {
				t.Fatal("driver-free")
			}
		})
	}
}

func TestOpensSection(t *testing.T) {
	for data, want := range map[string]bool{
		"[core]\n\tbare = false\n[branch \"main\"]\n\tmerge = refs/heads/main\n": false,
		"[remote \"origin\"]\n\turl = x\n":                                       false,
		"[ DIFF \"x\"]\n":                                                        true,
		"[mErGe \"x\"]\n\tdriver = y\n":                                          true,
		"# [include]\n":                                                          true,
		"[":                                                                      false,
		"[filte":                                                                 false,
	} {
		if got := opensSection([]byte(data), driverSections); got != want {
			t.Errorf("%q: %v, want %v", data, got, want)
		}
	}
}

// The fast path is sound only while every section driverKey overrides is
// one driverSections looks for: a key added to one list must reach the other.
func TestDriverSectionsCoverDriverKeys(t *testing.T) {
	src := strings.TrimSuffix(strings.TrimPrefix(driverKey().String(), "^("), ")$")
	var alts []string // the top-level alternatives: one per section
	depth, start := 0, 0
	for i, c := range src {
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			alts, start = append(alts, src[start:i]), i+1
		}
	}
	alts = append(alts, src[start:])
	if len(alts) < 3 {
		t.Fatalf("read %d alternatives from driverKey %q", len(alts), src)
	}
	for _, alt := range alts {
		section, _, _ := strings.Cut(alt, `\.`)
		if !slices.Contains(driverSections, section) {
			t.Errorf("driverKey overrides %q keys, but driverSections does not look for [%s", section, section)
		}
	}
}
