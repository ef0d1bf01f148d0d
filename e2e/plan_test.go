//go:build e2e

package e2e

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// treeHash fingerprints every file, mode and symlink under dir except
// coder's own .coder state.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".coder" {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", rel, info.Mode())
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// planRoutes tries every way a model could change the workspace.
func planRoutes() llmtest.Scenario {
	bash := func(cmd string) llmtest.ToolCall {
		return llmtest.Call("bash", fmt.Sprintf(`{"command":%q}`, cmd))
	}
	return llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"a.txt"}`)),
		llmtest.Calls(
			llmtest.Call("write", `{"path":"a.txt","content":"overwritten"}`),
			llmtest.Call("write", `{"path":"new.txt","content":"new"}`),
			llmtest.Call("edit", `{"path":"a.txt","old_string":"alpha","new_string":"omega"}`),
			llmtest.Call("patch", `{"patch":"*** Begin Patch\n*** Add File: p.txt\n+x\n*** End Patch"}`),
			llmtest.Call("task", `{"prompt":"edit a.txt"}`),
		),
		llmtest.Calls(
			bash("echo x > a.txt"),
			bash("echo x >> a.txt"),
			bash("sed -i 's/alpha/omega/' a.txt"),
			bash(`python3 -c "open('a.txt','w').write('x')"`),
			bash("touch created.txt"),
			bash("rm a.txt"),
			bash("mkdir newdir"),
			bash("cp a.txt copy.txt"),
			bash("git add -A && git commit -qm sneaky"),
			bash("git checkout -b other"),
			bash("ls; rm a.txt"),
			bash("cat $(rm a.txt)"),
			bash(`bash -c "echo x > a.txt"`),
			bash("find . -name a.txt -delete"),
		),
		llmtest.Text("I only looked."),
	}}
}

func planWorkspace(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", "alpha\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

func TestPlanModeChangesNothing(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := planWorkspace(t)
	before := treeHash(t, dir)
	srv := llmtest.NewServer(t, planRoutes())
	env := providerEnv(t, srv, "openai")
	res := run{args: []string{"--mode", "plan", "-p", "try to change things"}, env: env, dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	if after := treeHash(t, dir); after != before {
		t.Fatalf("plan mode changed the workspace:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// Every mutating call came back refused.
	for _, req := range srv.Requests()[2:4] {
		for _, r := range lastToolResults(req) {
			if !strings.Contains(r.Text, `"ok":false`) {
				t.Errorf("a call was not refused: %s", r.Text)
			}
		}
	}
	// And ! commands in plan mode too.
	bang := run{args: []string{"--mode", "plan", "--continue", "-p", "! touch bang.txt"}, env: env, dir: dir}.exec(t)
	if !strings.Contains(bang.stdout, "denied") {
		t.Fatalf("! in plan mode: %q %q", bang.stdout, bang.stderr)
	}
	if after := treeHash(t, dir); after != before {
		t.Fatal("a ! command changed the workspace in plan mode")
	}
}

// With danger approved by config, only the kernel stands between a
// plan-mode command and the workspace.
func TestPlanModeSandboxStopsApprovedWrites(t *testing.T) {
	if r := sandbox.Probe(); r.LandlockABI == 0 {
		t.Skipf("no Landlock sandbox on this kernel:\n%s", r)
	}
	dir := planWorkspace(t)
	writeFile(t, dir, ".coder/config.json", `{"approval": {"allow_danger": true}}`)
	before := treeHash(t, dir)
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo x > a.txt; touch created.txt; ls"}`)),
		llmtest.Text("done"),
	}})
	res := run{args: []string{"--trust", "--mode", "plan", "-p", "write anyway"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	results := lastToolResults(srv.Requests()[1])
	if len(results) != 1 {
		t.Fatalf("results: %+v", results)
	}
	// Read-only mounts (EROFS) or Landlock (EACCES), depending on the level.
	stopped := strings.Contains(results[0].Text, "Read-only file system") || strings.Contains(results[0].Text, "Permission denied")
	if !stopped || !strings.Contains(results[0].Text, "a.txt") {
		t.Fatalf("the approved command was not stopped by the kernel: %+v", results)
	}
	if after := treeHash(t, dir); after != before {
		t.Fatalf("the sandbox let a write through:\n%s", after)
	}
}
