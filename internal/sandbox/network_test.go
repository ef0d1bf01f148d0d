package sandbox

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
)

// fetchScript asks a loopback HTTP server for its page with bash alone.
func fetchScript(port string) string {
	return `exec 3<>/dev/tcp/127.0.0.1/` + port + ` && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3`
}

// TestNetworkOffReachesNothingOutside: with the network off, a server this
// test runs on the loopback (outside the sandbox) is unreachable; with it
// on, the same request works (positive control).
func TestNetworkOffReachesNothingOutside(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "hello-from-outside")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	for _, l := range levels(t, LevelLandlock) {
		if l == LevelLandlock && Probe().LandlockABI < 4 {
			continue // Landlock restricts TCP from ABI 4
		}
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			p := w.profile(l)
			r := run(t, p, fetchScript(port))
			if strings.Contains(r.stdout, "hello-from-outside") || r.code == 0 {
				t.Fatalf("network off, yet the server outside answered: %+v", r)
			}
			if d, ok := Explain(p, r.code, r.stderr); !ok || d.Kind != "network" {
				t.Errorf("the refusal is not explained as the sandbox's: %+v %+v", d, r)
			}
			p.Network = true
			if r := run(t, p, fetchScript(port)); !strings.Contains(r.stdout, "hello-from-outside") {
				t.Fatalf("positive control: network on, the server did not answer: %+v", r)
			}
		})
	}
}

// TestLoopbackInsideWorks: with the network off, the sandbox still has its
// own loopback, so a test suite can run a server and talk to it.
func TestLoopbackInsideWorks(t *testing.T) {
	needFull(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	w := newWorld(t)
	script := `python3 -c '
import socket, threading
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
def serve():
    c, _ = s.accept(); c.sendall(b"inside-ok"); c.close()
threading.Thread(target=serve).start()
c = socket.create_connection(s.getsockname()); print(c.recv(100).decode())'`
	if r := run(t, w.profile(LevelFull), script); strings.TrimSpace(r.stdout) != "inside-ok" {
		t.Fatalf("loopback inside the sandbox: %+v", r)
	}
}

// TestNoThreadOfTheHelperIsOutsideTheNetwork: the helper makes the
// network namespace on one of its threads and moves the others into it
// (netns_linux.go); a command that reads every visible thread's
// /proc/PID/task/TID/net must find none that shows the host's listener.
// With the network on (no namespace of its own), the same read shows it:
// the positive control.
func TestNoThreadOfTheHelperIsOutsideTheNetwork(t *testing.T) {
	needFull(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := fmt.Sprintf(":%04X ", ln.Addr().(*net.TCPAddr).Port)
	script := `ls -d /proc/1/task/* | wc -l; cat /proc/[0-9]*/task/*/net/tcp`
	w := newWorld(t)
	p := w.profile(LevelFull)
	r := run(t, p, script)
	threads, _, _ := strings.Cut(r.stdout, "\n")
	if n := strings.TrimSpace(threads); n == "" || n == "0" || n == "1" || !strings.Contains(r.stdout, "local_address") {
		t.Fatalf("the helper's threads (%s) or their sockets are out of sight, so this proves nothing: %+v", n, r)
	}
	if strings.Contains(r.stdout, port) {
		t.Fatalf("a thread in the sandbox shows the host's listener (%s): %s", strings.TrimSpace(port), r.stdout)
	}
	p.Network = true
	if r := run(t, p, script); !strings.Contains(r.stdout, port) {
		t.Fatalf("positive control: with the network on, the host's listener (%s) is not shown: %+v", strings.TrimSpace(port), r)
	}
}
