package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// listen serves a unix socket at path that answers "hello" to anyone.
func listen(t *testing.T, path string) {
	t.Helper()
	l, err := net.Listen("unix", path)
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

const connect = `python3 -c 'import socket,sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("reached", s.recv(5).decode())
except OSError as e:
    print("refused", e.errno)' `

// TestSocketsOfServicesOutsideAreUnreachable: at LevelFull a service
// listening in /tmp (where tmux, X11 and screen do) and one whose socket
// a variable like $TMUX names are out of reach, and the variables are not
// passed in; a socket in the workspace no variable names still works
// (positive control: sockets as such are not blocked).
func TestSocketsOfServicesOutsideAreUnreachable(t *testing.T) {
	needFull(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	w := newWorld(t)
	// Unix socket paths are short: a directory of their own under /tmp.
	dir, err := os.MkdirTemp("/tmp", "sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	tmuxLike := filepath.Join(dir, "default")
	named := filepath.Join(w.ws, "named.sock")
	mine := filepath.Join(w.ws, "mine.sock")
	for _, s := range []string{tmuxLike, named, mine} {
		listen(t, s)
	}
	p := w.profile(LevelFull)
	p.Env = append(p.Env, "TMUX="+named+",1234,0", "DISPLAY=:0", "DBUS_SESSION_BUS_ADDRESS=unix:path="+tmuxLike)
	r := run(t, p, connect+tmuxLike+"; "+connect+named+"; "+connect+mine+`; echo "vars:$TMUX$DISPLAY$DBUS_SESSION_BUS_ADDRESS"`)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "refused") || !strings.HasPrefix(lines[1], "refused") ||
		lines[2] != "reached hello" || lines[3] != "vars:" {
		t.Fatalf("%+v", r)
	}
	// Outside the sandbox all three answer (the test's own control).
	out, _ := exec.Command("bash", "-c", connect+tmuxLike).Output()
	if strings.TrimSpace(string(out)) != "reached hello" {
		t.Fatalf("outside: %s", out)
	}
}

// TestSocketPathsFollowTheEnvironment: every absolute path an IPC
// variable names is masked, in whatever form the variable holds it.
func TestSocketPathsFollowTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"tmux", "bus", "docker.sock", "kitty", "tmux-dir/tmux-" + strconv.Itoa(os.Getuid())} {
		writeTestFile(t, filepath.Join(dir, f), "")
	}
	p := Profile{Env: []string{"TMUX=" + dir + "/tmux,1,0", "DBUS_SESSION_BUS_ADDRESS=unix:path=" + dir + "/bus,guid=x",
		"DOCKER_HOST=unix://" + dir + "/docker.sock", "KITTY_LISTEN_ON=unix:" + dir + "/kitty", "TMUX_TMPDIR=" + dir + "/tmux-dir",
		"HOME=" + dir, "OTHER=" + dir + "/tmux"}}
	got := p.socketPaths()
	for _, want := range []string{"tmux", "bus", "docker.sock", "kitty", "tmux-dir/tmux-" + strconv.Itoa(os.Getuid())} {
		if !slices.Contains(got, filepath.Join(dir, want)) {
			t.Errorf("%s not masked: %q", want, got)
		}
	}
	if slices.Contains(got, filepath.Join(dir, "tmux-dir")) || slices.Contains(got, dir) {
		t.Errorf("masked more than the sockets: %q", got)
	}
}

// TestProgramsOnPathUnderTmpStayRunnable: the private /tmp binds back a
// PATH directory below /tmp (a language server or a CI's tool installed
// there), read-only, while the rest of /tmp stays out of reach (the
// control beside it: a file next to that directory is not seen).
func TestProgramsOnPathUnderTmpStayRunnable(t *testing.T) {
	needFull(t)
	dir, err := os.MkdirTemp("/tmp", "onpath")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "bin")
	writeTestFile(t, filepath.Join(bin, "hello-tool"), "#!/bin/sh\necho tool-ran\n")
	if err := os.Chmod(filepath.Join(bin, "hello-tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "beside"), "not for the sandbox\n")
	w := newWorld(t)
	p := w.profile(LevelFull)
	p.Env = append(slices.DeleteFunc(slices.Clone(p.Env), func(kv string) bool { return strings.HasPrefix(kv, "PATH=") }),
		"PATH="+bin+":/usr/bin:/bin")
	r := run(t, p, `hello-tool; cat `+filepath.Join(dir, "beside")+` 2>&1 | head -c 40; echo; touch `+filepath.Join(bin, "new")+` 2>/dev/null && echo wrote || echo read-only`)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || lines[0] != "tool-ran" || strings.Contains(lines[1], "not for the sandbox") || lines[2] != "read-only" {
		t.Fatalf("%+v", r)
	}
}
