package lsp

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
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

// Direct starts servers without a sandbox, each in a session of its own.
type Direct struct{}

// Start implements Starter.
func (Direct) Start(argv, env []string, dir string, stderr io.Writer) (Process, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = dir, env, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return StartPiped(cmd, func(c *exec.Cmd) (Waiter, error) {
		if err := c.Start(); err != nil {
			return nil, err
		}
		return &groupWaiter{cmd: c, done: make(chan struct{})}, nil
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

// groupWaiter is a command started in a session of its own: Stop sends its
// process group SIGTERM, then SIGKILL after a grace period; what is left of
// the group when it has ended is killed.
type groupWaiter struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func (g *groupWaiter) Wait() error {
	err := g.cmd.Wait()
	_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
	close(g.done)
	return err
}

func (g *groupWaiter) Stop() {
	_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGTERM)
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-g.done:
	case <-t.C:
		_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
	}
}

// stopGrace is how long a stopped server gets before it is killed.
const stopGrace = 2 * time.Second

// tail keeps the last bytes written to it: a server's stderr, for the
// report when it fails.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 4 << 10

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > tailMax {
		t.buf = append(t.buf[:0:0], t.buf[len(t.buf)-tailMax:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
