//go:build e2e

package e2e

import (
	"fmt"
	"net"
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
// in /tmp and one in the home directory; and it connects to an abstract
// socket named as an X server's. Nothing runs outside and nothing answers;
// the same commands outside the sandbox do (positive controls); coder
// doctor names the variables as not passed in.
func TestTmuxSocketIsOutOfReach(t *testing.T) {
	t.Parallel()
	needLevel(t, sandbox.LevelFull)
	for _, tool := range []string{"tmux", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool)
		}
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
	// An X server listens on an abstract socket too (@/tmp/.X11-unix/XN),
	// which no mount can hide.
	x11 := fmt.Sprintf("@/tmp/.X11-unix/X%d", 1000+os.Getpid()%50000)
	listenAbstract(t, x11)
	connect := `python3 -c 'import socket,sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0"+sys.argv[1][1:]); print("x11:reached", s.recv(5).decode())
except OSError as e:
    print("x11:refused", e.errno)' ` + x11
	pwned := filepath.Join(w.outside, "PWNED")
	w.env["TMUX"] = socks[1] + ",1,0"
	w.env["TMUX_PANE"] = "%0"
	w.env["DISPLAY"] = ":0"
	_, srv := w.headless(t, llmtest.Calls(
		bashCall(`echo "vars:$TMUX$TMUX_PANE$DISPLAY"; tmux -S "${TMUX%%,*}" run-shell 'touch `+pwned+`'; `+
			`tmux -S `+socks[0]+` run-shell 'touch `+pwned+`'; tmux -S `+socks[1]+` run-shell 'touch `+pwned+`'; ls /tmp; `+connect)))
	r := results(t, srv, 0)[0]
	if _, err := os.Stat(pwned); err == nil {
		t.Fatalf("a tmux server outside ran the command: %s", r)
	}
	if !strings.Contains(r, "vars:") || strings.Contains(r, "vars:/") || strings.Contains(r, "%0") {
		t.Fatalf("the variables were passed in: %s", r)
	}
	if !strings.Contains(r, "x11:refused") {
		t.Fatalf("the abstract socket answered: %s", r)
	}
	// Positive controls: the same, outside the sandbox.
	if out, err := exec.Command("sh", "-c", connect).CombinedOutput(); err != nil || !strings.Contains(string(out), "x11:reached hello") {
		t.Fatalf("control: the abstract socket outside: %v %s", err, out)
	}
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

// listenAbstract serves an abstract unix socket (name starting with @)
// that answers "hello" to anyone, until the test ends.
func listenAbstract(t *testing.T, name string) {
	t.Helper()
	l, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
}
