//go:build e2e

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// swapper is a background task that makes .mcp.json a directory (with
// what a restore used to delete) and swaps it with a symlink to $HOME by
// renameat2 RENAME_EXCHANGE, as fast as it can, until killed.
const swapper = `python3 - <<'EOF'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
home = os.environ["HOME"]
while True:
    try:
        if not os.path.lexists(".mcp.json"):
            os.makedirs(".mcp.json/Documents")
            for i in range(3):
                open(".mcp.json/Documents/f%d" % i, "w").write("x")
        if not os.path.lexists("lnk"):
            os.symlink(home, "lnk")
        libc.renameat2(-100, b".mcp.json", -100, b"lnk", 2)
    except OSError:
        pass
EOF`

// TestRestoreRaceTouchesNothingOutside is the fake-HOME deletion race: a
// background task swaps a .mcp.json directory with a symlink to $HOME
// while 50 calls end, each ending with the restore. Not one file outside
// the workspace changes (the home's Documents included), at each level;
// the restore did act (what it moved aside is in the results).
func TestRestoreRaceTouchesNothingOutside(t *testing.T) {
	t.Parallel()
	needLevel(t, sandbox.LevelLandlock)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	for _, level := range boundaryLevels() {
		t.Run(level.String(), func(t *testing.T) {
			w := newSandboxWorld(t)
			w.allowDanger(t, "")
			w.atLevel(level)
			// Absent at the start: an existing one is bound read-only.
			if err := os.Remove(filepath.Join(w.ws, ".mcp.json")); err != nil {
				t.Fatal(err)
			}
			for i := range 6 {
				writeFile(t, w.home, fmt.Sprintf("Documents/f%d", i), "the person's\n")
			}
			home := treeHash(t, w.home)
			var ends []llmtest.ToolCall
			for range 50 {
				ends = append(ends, bashCall(`test -e .mcp.json || test -L lnk; echo $?`))
			}
			_, srv := w.headless(t,
				llmtest.Calls(llmtest.Call("bash", fmt.Sprintf(`{"command":%q,"background":true}`, swapper))),
				llmtest.Step{ToolCalls: []llmtest.ToolCall{bashCall(`for i in $(seq 100); do test -L lnk && break; sleep 0.1; done`)}},
				llmtest.Step{ToolCalls: ends},
				llmtest.Calls(llmtest.Call("bash_kill", `{"task_id":"task-1"}`)),
			)
			if after := treeHash(t, w.home); after != home {
				t.Fatalf("the restore changed the home directory")
			}
			all := strings.Join(results(t, srv, 2), "\n")
			if n := strings.Count(all, "aside to .mcp.json"+".coder-moved-"); n == 0 {
				t.Fatalf("the race did not happen (nothing was moved aside):\n%s", all)
			} else {
				t.Logf("%d of 50 call ends moved a swapped .mcp.json aside", n)
			}
			if left, _ := filepath.Glob(filepath.Join(w.home, "Documents", "*")); len(left) != 6 {
				t.Fatalf("the home's Documents: %q", left)
			}
		})
	}
}

// TestRestoreIsNotNeededAtFull: at level full the existing control files
// are read-only mounts: the command's changes fail, there is nothing to
// put back, and the result says nothing was restored.
func TestRestoreIsNotNeededAtFull(t *testing.T) {
	t.Parallel()
	needLevel(t, sandbox.LevelFull)
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	before := fileHashes(t, w.ws, []string{".git/config", ".mcp.json", ".coder/config.json"})
	_, srv := w.headless(t, llmtest.Calls(bashCall(`git config core.pager evil; echo x >> .mcp.json; rm -rf .coder; echo done`)))
	r := results(t, srv, 0)[0]
	if fileHashes(t, w.ws, []string{".git/config", ".mcp.json", ".coder/config.json"}) != before {
		t.Fatal("a control file changed")
	}
	if strings.Contains(r, "restored") || !strings.Contains(r, "Read-only file system") {
		t.Fatalf("%s", r)
	}
}
