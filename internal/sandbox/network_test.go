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
