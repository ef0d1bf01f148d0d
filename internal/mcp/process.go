package mcp

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/proctree"
)

// stderrTail is how much of a server's stderr is kept for error messages.
const stderrTail = 2 << 10

// stopGrace is how long a stdio server gets to exit after its stdin closes,
// and again after SIGTERM, before the whole process group is killed.
const stopGrace = 1500 * time.Millisecond

// process is a running stdio server in its own process group. The pipes are
// plain os.Pipe files rather than exec's StdoutPipe so that exec never
// closes our read end under the SDK (Wait would) and reads end with a clean
// EOF once every writer, grandchildren included, is gone.
type process struct {
	cmd    *exec.Cmd
	tree   *proctree.Tree
	stdin  *os.File // our write end of the server's stdin
	stdout *os.File // our read end of the server's stdout
	stderr *tailBuffer
	exited chan struct{}
	err    error // Wait's result, set before exited closes
}

// startProcess starts command in dir with the environment env. onExit is
// called once, from another goroutine, when the leader exits.
func startProcess(command string, args []string, env []string, dir string, onExit func(*process)) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	p := &process{stdin: inW, stdout: outR, stderr: &tailBuffer{max: stderrTail}, exited: make(chan struct{})}
	cmd := exec.Command(command, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, p.stderr
	// A group of its own, so that stop reaches what the server spawned
	// (npx → node, uvx → python) and Ctrl+C in the terminal does not.
	// Grandchildren may keep stderr open after the leader exits.
	cmd.WaitDelay = stopGrace
	p.cmd = cmd
	p.tree, err = proctree.Start(cmd, false)
	// The child holds its own copies now; ours would keep the pipes open.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
		if onExit != nil {
			onExit(p)
		}
	}()
	return p, nil
}

// stop ends the server the way the MCP spec asks for stdio: close its stdin,
// wait, SIGTERM, wait, SIGKILL. The group is killed in every case so that no
// grandchild is orphaned. Safe to call more than once.
func (p *process) stop() {
	p.stdin.Close()
	if !p.waitExit(stopGrace) {
		p.tree.Terminate()
		p.waitExit(stopGrace)
	}
	p.tree.Kill()
	<-p.exited
	p.tree.Release()
	p.stdout.Close()
}

// kill ends a server that never got going: there is no session worth a
// graceful shutdown.
func (p *process) kill() {
	p.stdin.Close()
	p.tree.Kill()
	<-p.exited
	p.tree.Release()
	p.stdout.Close()
}

func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitError describes how the process ended, with the tail of its stderr.
func (p *process) exitError() error {
	select {
	case <-p.exited:
	default:
		return nil
	}
	msg := "exited"
	if p.err != nil {
		msg = p.err.Error()
	}
	if tail := p.stderr.String(); tail != "" {
		msg += "; stderr: " + tail
	}
	return fmt.Errorf("%s", msg)
}

// withStderr appends the tail of the server's stderr to err: the reason a
// server refused to start is almost always printed there.
func (p *process) withStderr(err error) error {
	if tail := p.stderr.String(); tail != "" {
		return fmt.Errorf("%w; stderr: %s", err, tail)
	}
	return err
}

// mergeEnv returns base with extra set on top (extra wins).
func mergeEnv(base []string, extra map[string]string) []string {
	out := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := extra[k]; !over {
			out = append(out, kv)
		}
	}
	for k, v := range extra {
		out = append(out, k+"="+v)
	}
	return out
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(t.b), "?"))
}
