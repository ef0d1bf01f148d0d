//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// TestTmuxSocketIsOutOfReach: coder runs inside a tmux pane ($TMUX set),
// and a model tries what the red team did: `tmux -S "${TMUX%%,*}"
// run-shell`, and the same at the socket's path spelled out, for a server
// in /tmp and one in the home directory. Nothing runs outside; the same
// command outside the sandbox does (positive control); coder doctor names
// the variable as not passed in.
func TestTmuxSocketIsOutOfReach(t *testing.T) {
	t.Parallel()
	needLevel(t, sandbox.LevelFull)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	// Unix socket paths are short: the servers' own directories.
	inTmp, err := os.MkdirTemp("/tmp", "tmx")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(inTmp) })
	inHome := filepath.Join(w.home, "t")
	if err := os.Mkdir(inHome, 0o700); err != nil {
		t.Fatal(err)
	}
	var socks []string
	for _, dir := range []string{inTmp, inHome} {
		sock := filepath.Join(dir, "s")
		if out, err := exec.Command("tmux", "-S", sock, "new-session", "-d", "sleep 600").CombinedOutput(); err != nil {
			t.Fatalf("tmux: %v %s", err, out)
		}
		t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
		socks = append(socks, sock)
	}
	pwned := filepath.Join(w.outside, "PWNED")
	w.env["TMUX"] = socks[1] + ",1,0"
	w.env["TMUX_PANE"] = "%0"
	w.env["DISPLAY"] = ":0"
	_, srv := w.headless(t, llmtest.Calls(
		bashCall(`echo "vars:$TMUX$TMUX_PANE$DISPLAY"; tmux -S "${TMUX%%,*}" run-shell 'touch `+pwned+`'; `+
			`tmux -S `+socks[0]+` run-shell 'touch `+pwned+`'; tmux -S `+socks[1]+` run-shell 'touch `+pwned+`'; ls /tmp`)))
	r := results(t, srv, 0)[0]
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("a tmux server outside ran the command: %s", r)
	}
	if !strings.Contains(r, "vars:") || strings.Contains(r, "vars:/") || strings.Contains(r, "%0") {
		t.Fatalf("the variables were passed in: %s", r)
	}
	// Positive control: the same, outside the sandbox.
	for _, sock := range socks {
		if out, err := exec.Command("tmux", "-S", sock, "run-shell", "touch "+pwned).CombinedOutput(); err != nil {
			t.Fatalf("control: tmux outside: %v %s", err, out)
		}
		if _, err := os.Stat(pwned); err != nil {
			t.Fatalf("control: tmux run-shell outside did nothing (%s)", sock)
		}
		os.Remove(pwned)
	}
	doc := run{args: []string{"doctor"}, env: w.env, dir: w.ws}.exec(t)
	if !strings.Contains(doc.stdout, "$TMUX, $TMUX_PANE") || !strings.Contains(doc.stdout, "$DISPLAY") || !strings.Contains(doc.stdout, "/tmp is private") ||
		!strings.Contains(doc.stdout, socks[1]) {
		t.Fatalf("coder doctor does not list the sockets:\n%s", doc.stdout)
	}
}
