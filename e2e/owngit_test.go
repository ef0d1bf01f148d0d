//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// nestedFilterWorkspace is the second red team's reproduction, left as the
// attack leaves it: vendor/lib is a repository of its own whose config has a
// [filter] section appended and whose .gitattributes puts every file
// through it; the outer repository holds it as a gitlink (with a
// .gitmodules asking git to look inside), and its files are stat-dirty.
// The outer a.txt is changed too, for the positive controls.
func nestedFilterWorkspace(t *testing.T) (dir, marker string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir = planWorkspace(t)
	marker = filepath.Join(t.TempDir(), "filter-ran")
	lib := filepath.Join(dir, "vendor", "lib")
	writeFile(t, lib, "f.txt", "lib\n")
	writeFile(t, lib, ".gitattributes", "* filter=evil\n")
	git(t, lib, "init", "-q")
	git(t, lib, "add", ".")
	git(t, lib, "commit", "-qm", "lib")
	cfg, err := os.OpenFile(filepath.Join(lib, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(cfg, "[filter \"evil\"]\n\tclean = touch %s; cat\n", marker)
	cfg.Close()
	writeFile(t, dir, ".gitmodules", "[submodule \"lib\"]\n\tpath = vendor/lib\n\turl = ./lib\n\tignore = none\n")
	git(t, dir, "add", ".gitmodules", "vendor/lib")
	git(t, dir, "commit", "-qm", "vendor")
	writeFile(t, dir, "a.txt", "changed by the person\n")
	return dir, marker
}

// git runs the person's own git in dir.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}

// stirNested leaves the nested repository's files stat-dirty again.
func stirNested(t *testing.T, dir string) {
	t.Helper()
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(filepath.Join(dir, "vendor", "lib", "f.txt"), later, later); err != nil {
		t.Fatal(err)
	}
}

func noFilterRan(t *testing.T, marker, when string) {
	t.Helper()
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("%s: coder's own git ran the nested repository's clean filter", when)
	}
}

// TestOwnGitNeverRunsANestedRepositorysFilter: coder's start-up git status
// (build and plan mode), /diff and /undo never run the filter a nested
// repository's config names; they still see the outer repository's
// changes (the system prompt counts a.txt, /diff shows it, /undo reverts
// coder's edit), and the person's own git does run the filter (the
// attack is real here).
func TestOwnGitNeverRunsANestedRepositorysFilter(t *testing.T) {
	dir, marker := nestedFilterWorkspace(t)
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("write", `{"path":"b.txt","content":"by coder\n"}`)),
		llmtest.Text("done"),
		llmtest.Text("planned"),
	}})
	env := providerEnv(t, srv, "openai")

	stirNested(t, dir)
	if res := (run{args: []string{"-p", "write b"}, env: env, dir: dir}.exec(t)); res.code != 0 {
		t.Fatalf("build run: %+v", res)
	}
	noFilterRan(t, marker, "start-up")
	// The summary counts what the outer repository's own status showed at
	// start (a.txt and .coder/; b.txt came later), nothing from vendor/lib.
	outer := git(t, dir, "status", "--porcelain", "--ignore-submodules=all")
	want := fmt.Sprintf("git: master, %d changed files", strings.Count(outer, "\n")-strings.Count(outer, "b.txt"))
	if sys := srv.Requests()[0].System(); !strings.Contains(outer, " M a.txt") || !strings.Contains(sys, want) {
		t.Fatalf("positive control: the start-up summary is not %q:\n%s\n%s", want, sys, outer)
	}

	stirNested(t, dir)
	undo := run{args: []string{"--continue", "-p", "/undo"}, env: env, dir: dir}.exec(t)
	noFilterRan(t, marker, "/undo")
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !os.IsNotExist(err) || !strings.Contains(undo.stdout, "b.txt") {
		t.Fatalf("positive control: /undo did not remove coder's b.txt: %v %+v", err, undo)
	}

	stirNested(t, dir)
	if res := (run{args: []string{"--mode", "plan", "-p", "plan"}, env: env, dir: dir}.exec(t)); res.code != 0 {
		t.Fatalf("plan run: %+v", res)
	}
	noFilterRan(t, marker, "start-up in plan mode")

	stirNested(t, dir)
	diff := run{args: []string{"-p", "/diff"}, env: env, dir: dir}.exec(t)
	noFilterRan(t, marker, "/diff")
	if !strings.Contains(diff.stdout, "a.txt") || !strings.Contains(diff.stdout, "+changed by the person") {
		t.Fatalf("positive control: /diff did not show a.txt: %+v", diff)
	}

	stirNested(t, dir)
	cmd := exec.Command("git", "status")
	cmd.Dir = dir
	_ = cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("control: plain git did not run the nested filter either, so the test proves nothing")
	}
}
