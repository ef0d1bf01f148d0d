//go:build e2e

package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// fakeTerminal is coder on a pseudo-terminal whose other side the test
// plays: it records every byte coder writes and answers the queries a
// terminal answers (cursor position, DEC mode 2026).
type fakeTerminal struct {
	t      *testing.T
	master *os.File
	cmd    *exec.Cmd
	mu     sync.Mutex
	out    bytes.Buffer
	// mode2026 is the terminal's answer to DECRQM for mode 2026: 2
	// (known, reset) or 0 (not recognized).
	mode2026 int
	answered int // queries answered so far, of each kind, by their count
	done     chan struct{}
}

func startFakeTerminal(t *testing.T, cols int, srv *llmtest.Server, dir string, mode2026 int) *fakeTerminal {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 30, Col: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(coderBin)
	cmd.Dir = dir
	for k, v := range providerEnv(t, srv, "openai") {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "TERM=xterm-256color")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	ft := &fakeTerminal{t: t, master: master, cmd: cmd, mode2026: mode2026, done: make(chan struct{})}
	go ft.read()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-ft.done
		master.Close()
	})
	return ft
}

// read records what coder writes and answers its queries as they come.
func (ft *fakeTerminal) read() {
	defer close(ft.done)
	go func() { _ = ft.cmd.Wait(); ft.master.Close() }()
	buf := make([]byte, 4096)
	dsr, decrqm := 0, 0
	for {
		n, err := ft.master.Read(buf)
		ft.mu.Lock()
		ft.out.Write(buf[:n])
		all := ft.out.String()
		ft.mu.Unlock()
		for ; dsr < strings.Count(all, "\x1b[6n"); dsr++ {
			_, _ = ft.master.WriteString("\x1b[25;1R") // near the bottom
		}
		for ; decrqm < strings.Count(all, "\x1b[?2026$p"); decrqm++ {
			_, _ = fmt.Fprintf(ft.master, "\x1b[?2026;%d$y", ft.mode2026)
		}
		if err != nil {
			return
		}
	}
}

func (ft *fakeTerminal) output() string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return ft.out.String()
}

func (ft *fakeTerminal) waitFor(want string) {
	ft.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(ft.output(), want) {
		if time.Now().After(deadline) {
			ft.t.Fatalf("never written: %q\n%q", want, ft.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Where the terminal says it knows mode 2026, every redraw after its
// answer is one synchronized update (the terminal shows it whole); where
// it does not, no mark is sent.
func TestREPLSynchronizedOutput(t *testing.T) {
	for _, cols := range []int{40, 120} {
		for _, mode := range []int{2, 0} {
			t.Run(fmt.Sprintf("%d/mode%d", cols, mode), func(t *testing.T) {
				srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
					{Text: "a synced answer, streamed in pieces", ChunkSize: 3, TokenDelay: 20 * time.Millisecond},
				}})
				ft := startFakeTerminal(t, cols, srv, t.TempDir(), mode)
				ft.waitFor("\x1b[?2026$p")
				ft.waitFor("context: ")
				time.Sleep(300 * time.Millisecond) // the answer is read
				start := len(ft.output())
				_, _ = ft.master.WriteString("hello")
				ft.waitFor("hello")
				_, _ = ft.master.WriteString("\r")
				ft.waitFor("in pieces")
				ft.waitFor("1 step · ")
				_, _ = ft.master.WriteString("\x04") // Ctrl+D: leave
				ft.waitFor("resume this session with")
				after := ft.output()[start:]
				// What follows the REPL's end is plain output: the hint.
				after = after[:strings.Index(after, "\x1b[2mresume this session with")]
				if mode == 0 {
					if strings.Contains(ft.output(), "\x1b[?2026h") {
						t.Fatalf("synchronized output without the terminal's yes:\n%q", after)
					}
					return
				}
				// Every byte drawn after the answer is inside a pair of marks.
				outside, n := after, 0
				for {
					i := strings.Index(outside, "\x1b[?2026h")
					if i < 0 {
						break
					}
					j := strings.Index(outside[i:], "\x1b[?2026l")
					if j < 0 {
						t.Fatalf("an update never ends:\n%q", outside[i:])
					}
					outside, n = outside[:i]+outside[i+j+len("\x1b[?2026l"):], n+1
				}
				if n < 5 || strings.Trim(outside, "\r\n") != "" {
					t.Fatalf("%d synchronized updates; written outside them: %q", n, outside)
				}
			})
		}
	}
}
