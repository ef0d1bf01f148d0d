package lsp

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/proctree"
)

// Process is a started language server: Read reads its stdout, Write
// writes its stdin, Close closes both.
type Process interface {
	io.ReadWriteCloser
	// Done is closed when it has ended.
	Done() <-chan struct{}
	// Err is how it ended (exec's Wait error), once Done.
	Err() error
	// Stop ends it and everything it started; it returns once it ended.
	Stop()
}

// Starter starts language servers in dir with the environment env (nil:
// coder's), their stderr going to stderr. coder's runs them in its sandbox
// with the workspace read-only (internal/app); Direct runs them as they are.
type Starter interface {
	Start(argv, env []string, dir string, stderr io.Writer) (Process, error)
}

// Direct starts servers without a sandbox, each as a process tree of its
// own (a session on Unix, a Job Object on Windows).
type Direct struct{}

// Start implements Starter.
func (Direct) Start(argv, env []string, dir string, stderr io.Writer) (Process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = dir, env, stderr
	return StartPiped(cmd, func(c *exec.Cmd) (Waiter, error) {
		tree, err := proctree.Start(c, true)
		if err != nil {
			return nil, err
		}
		return &treeWaiter{cmd: c, tree: tree, done: make(chan struct{})}, nil
	})
}

// Waiter is a started command as StartPiped needs it.
type Waiter interface {
	Wait() error
	// Stop ends it and everything it started.
	Stop()
}

// StartPiped connects cmd's stdin and stdout to pipes, starts it with
// start, and returns it as a Process. The pipes are plain os.Pipes rather
// than exec's, so the command can be waited for while they are still read.
func StartPiped(cmd *exec.Cmd, start func(*exec.Cmd) (Waiter, error)) (Process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_, _ = inR.Close(), inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	w, err := start(cmd)
	// The child has its own copies of its ends now.
	_, _ = inR.Close(), outW.Close()
	if err != nil {
		_, _ = inW.Close(), outR.Close()
		return nil, err
	}
	p := &piped{in: inW, out: outR, w: w, done: make(chan struct{})}
	go func() {
		p.err = w.Wait()
		close(p.done)
	}()
	return p, nil
}

type piped struct {
	in    *os.File
	out   *os.File
	w     Waiter
	done  chan struct{}
	err   error
	close sync.Once
}

func (p *piped) Read(b []byte) (int, error)  { return p.out.Read(b) }
func (p *piped) Write(b []byte) (int, error) { return p.in.Write(b) }
func (p *piped) Done() <-chan struct{}       { return p.done }

func (p *piped) Err() error {
	<-p.done
	return p.err
}

func (p *piped) Close() error {
	p.close.Do(func() { _, _ = p.in.Close(), p.out.Close() })
	return nil
}

// Stop asks it to end, then closes the pipes, so a write blocked on a
// server that stopped reading returns.
func (p *piped) Stop() {
	p.w.Stop()
	_ = p.Close()
	<-p.done
}

// treeWaiter is a command started as a process tree of its own: Stop asks
// the tree to end, then kills it after a grace period; what is left of the
// tree when the command has ended is killed.
type treeWaiter struct {
	cmd   *exec.Cmd
	tree  *proctree.Tree
	done  chan struct{}
	mu    sync.Mutex
	ended bool // the tree is killed and released: no signal may reach it
}

func (g *treeWaiter) Wait() error {
	err := g.cmd.Wait()
	g.mu.Lock()
	g.tree.Kill()
	g.tree.Release()
	g.ended = true
	g.mu.Unlock()
	close(g.done)
	return err
}

// signal runs f on the tree unless Wait has already released it (on
// Windows its Job Object handle is closed then).
func (g *treeWaiter) signal(f func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.ended {
		f()
	}
}

func (g *treeWaiter) Stop() {
	g.signal(g.tree.Terminate)
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-g.done:
	case <-t.C:
		g.signal(g.tree.Kill)
	}
}

// stopGrace is how long a stopped server gets before it is killed.
const stopGrace = 2 * time.Second

// tail keeps the first and the last bytes written to it: a server's
// stderr, for the report when it fails.
type tail struct {
	mu   sync.Mutex
	head []byte
	buf  []byte
	cut  bool // bytes were dropped between head and buf
}

const (
	headMax = 1 << 10
	tailMax = 4 << 10
)

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := min(headMax-len(t.head), len(b)); n > 0 {
		t.head = append(t.head, b[:n]...)
	}
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailMax {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-tailMax:]...)
		t.cut = true
	}
	return len(b), nil
}

// gist is what a report says of the output, as ": line": its first
// non-empty line and, when there are more, its last — a Go panic or
// rustup names the problem first, a Python traceback last.
func (t *tail) gist() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	all := string(t.buf)
	if t.cut {
		all = string(t.head) + "\n" + all
	}
	var lines []string
	for l := range strings.SplitSeq(all, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	switch len(lines) {
	case 0:
		return ""
	case 1:
		return ": " + clip(lines[0], 300)
	}
	return ": " + clip(lines[0], 200) + " … " + clip(lines[len(lines)-1], 200)
}
