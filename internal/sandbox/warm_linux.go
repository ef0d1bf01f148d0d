package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// Warm keeps one sandbox set up between a session's foreground commands.
// Setting a sandbox up costs a fork of coder (into new namespaces at the
// full level) and a start of the helper, most of a sandboxed call's time;
// a serving helper (helper.Spec.Serve) does it once, then runs each
// command it is sent as a child (at the Landlock level through the
// restrict stage, which still starts once for each command), and kills
// and reaps everything the command left before it answers, so each
// command still starts in a sandbox where nothing of the last one runs.
// The first command sets it up and runs in it; a command whose sandbox is
// not exactly the one kept replaces it; a second command while one runs
// starts the usual way. The zero value is ready; Close ends the kept
// sandbox.
type Warm struct {
	mu     sync.Mutex
	z      *zygote
	failed map[string]bool // specs whose serving helper never came up
	closed bool
}

// zygote is a serving helper and coder's end of its socket.
type zygote struct {
	w   *Warm
	key string
	// conn is coder's end of the socket pair, a pollable file (no package
	// net: an editor's terminal starts coder with this package in its
	// first initialised ones, see package terminal).
	conn  *os.File
	proc  *Process
	ready chan struct{} // closed once it said ready
	dead  chan struct{} // closed once its socket ended
	busy  bool          // under Warm.mu
	exits chan int      // the running command's exit code
	// quit is closed when coder ends it (close), which is not a failure.
	quit     chan struct{}
	quitOnce sync.Once
	jobs     int // commands handed over, under Warm.mu: the next one's id
}

// warmStartTimeout bounds a serving helper's set-up; one slower is ended
// and not tried again for that spec.
const warmStartTimeout = 10 * time.Second

// runKept runs argv in the sandbox of spec s that w keeps set up, setting
// it up first when w keeps none for exactly s; nil when that cannot be
// (another command runs in the kept one, its set-up failed, ctx ended):
// the caller then starts argv the usual way.
func (w *Warm) runKept(ctx context.Context, p Profile, level Level, s helper.Spec, argv []string, stdout, stderr io.Writer) *Process {
	if w == nil {
		return nil
	}
	key := strings.Join(helper.Args(s, nil), "\x00")
	z, id := w.take(ctx, p, level, s, key)
	if z == nil {
		return nil
	}
	proc, err := z.run(ctx, id, p, argv, stdout, stderr)
	if err != nil {
		w.drop(z)
		return nil
	}
	return proc
}

// take returns the kept sandbox for key, marked busy, and the id of the
// command it is to run, once it is ready; nil when another command runs in
// it or it cannot come up. A sandbox kept for another spec is ended and
// one for key set up: the first command of a session already runs in the
// sandbox the next ones will find ready, so a session pays one set-up as
// long as its commands' sandbox stays the same, and never one it does not
// use.
func (w *Warm) take(ctx context.Context, p Profile, level Level, s helper.Spec, key string) (*zygote, string) {
	w.mu.Lock()
	if w.closed || w.failed[key] {
		w.mu.Unlock()
		return nil, ""
	}
	z := w.z
	switch {
	case z != nil && z.busy:
		w.mu.Unlock()
		return nil, "" // one command at a time; this one starts the usual way
	case z != nil && z.key == key && !closed(z.dead):
		// kept for key, ready or still setting up
	default:
		if z != nil {
			w.z = nil
			go z.close()
		}
		var err error
		if z, err = w.startZygote(p, level, s, key); err != nil {
			w.fail(key)
			w.mu.Unlock()
			return nil, ""
		}
		w.z = z
		go w.watch(z)
	}
	z.busy = true // held while it sets up: a second command starts the usual way
	w.mu.Unlock()
	select {
	case <-z.ready:
	case <-z.dead: // it failed, or watch ended it as too slow
	case <-ctx.Done():
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !closed(z.ready) || closed(z.dead) || ctx.Err() != nil || w.z != z {
		z.busy = false
		return nil, ""
	}
	z.jobs++
	return z, strconv.Itoa(z.jobs)
}

// watch forgets z once it ended, and its spec for good if it never came up.
func (w *Warm) watch(z *zygote) {
	t := time.NewTimer(warmStartTimeout)
	defer t.Stop()
	select {
	case <-z.ready:
	case <-z.dead:
	case <-t.C:
	}
	if !closed(z.ready) {
		if !closed(z.quit) { // it failed, or was too slow, by itself
			w.mu.Lock()
			w.fail(z.key)
			w.mu.Unlock()
		}
		z.close()
	}
	<-z.dead
	w.mu.Lock()
	if w.z == z {
		w.z = nil
	}
	w.mu.Unlock()
}

func (w *Warm) fail(key string) {
	if w.failed == nil {
		w.failed = map[string]bool{}
	}
	w.failed[key] = true
}

// drop ends z after a command could not be handed to it.
func (w *Warm) drop(z *zygote) {
	w.mu.Lock()
	if w.z == z {
		w.z = nil
	}
	w.mu.Unlock()
	z.close()
}

// release marks z free after its command ended.
func (w *Warm) release(z *zygote) {
	w.mu.Lock()
	z.busy = false
	w.mu.Unlock()
}

// Close ends the kept sandbox; later calls start the usual way.
func (w *Warm) Close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	z := w.z
	w.z, w.closed = nil, true
	w.mu.Unlock()
	if z != nil {
		z.close()
	}
}

// startZygote starts a serving helper for spec s of p at level, in the
// background.
func (w *Warm) startZygote(p Profile, level Level, s helper.Spec, key string) (*zygote, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	// Non-blocking on coder's end only (the helper reads its end
	// blocking), so that os.NewFile gives a file the runtime polls: Close
	// then ends a pending Read.
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		syscall.Close(fds[0])
		syscall.Close(fds[1])
		return nil, err
	}
	conn, remote := os.NewFile(uintptr(fds[0]), "warm sandbox"), os.NewFile(uintptr(fds[1]), "warm sandbox")
	defer remote.Close()
	s.Serve = true
	cmd, err := helperCommand(context.Background(), p, level, s, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{remote} // helper.ServeFD
	proc, err := Start(cmd)
	if err != nil {
		conn.Close()
		return nil, err
	}
	z := &zygote{w: w, key: key, conn: conn, proc: proc, ready: make(chan struct{}), dead: make(chan struct{}),
		exits: make(chan int, 1), quit: make(chan struct{})}
	go z.read()
	return z, nil
}

// read takes the serving helper's messages until its socket ends.
func (z *zygote) read() {
	defer close(z.dead)
	buf := make([]byte, 64)
	for {
		n, err := z.conn.Read(buf)
		if err != nil || n == 0 {
			return
		}
		msg := string(buf[:n])
		switch {
		case msg == helper.MsgReady:
			if !closed(z.ready) {
				close(z.ready)
			}
		case strings.HasPrefix(msg, helper.MsgExit+" "):
			code, err := strconv.Atoi(strings.TrimPrefix(msg, helper.MsgExit+" "))
			if err != nil {
				return
			}
			select {
			case z.exits <- code:
			default:
			}
		}
	}
}

// close ends the serving helper without waiting for it: its socket's end
// tells it to end what runs and exit; Stop follows if it does not.
func (z *zygote) close() {
	z.quitOnce.Do(func() {
		close(z.quit)
		z.conn.Close()
		go func() {
			select {
			case <-z.proc.Done():
			case <-time.After(3 * helper.StopGrace):
				z.proc.Stop()
			}
		}()
	})
}

// run hands argv to z, which must be ready and marked busy, as command id.
func (z *zygote) run(ctx context.Context, id string, p Profile, argv []string, stdout, stderr io.Writer) (*Process, error) {
	fields := append([]string{helper.MsgRun, id, p.Workspace, strconv.Itoa(len(argv))}, argv...)
	fields = append(fields, p.environ()...)
	for _, f := range fields {
		if strings.IndexByte(f, 0) >= 0 {
			return nil, errors.New("sandbox: a NUL byte in the command") // the usual start says why
		}
	}
	msg := strings.Join(fields, "\x00")
	if len(msg) > helper.MaxMsg {
		return nil, errors.New("sandbox: command too long to hand over")
	}
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer stdin.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// One pipe for both when they are one writer, as exec.Cmd does: two
	// copies into it would interleave.
	errR, errW := outR, outW
	if stderr != stdout {
		if errR, errW, err = os.Pipe(); err != nil {
			outR.Close()
			outW.Close()
			return nil, err
		}
	}
	select { // a stale code from a command ended by a dead socket
	case <-z.exits:
	default:
	}
	err = z.send([]byte(msg), syscall.UnixRights(int(stdin.Fd()), int(outW.Fd()), int(errW.Fd())))
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, err
	}
	proc := &Process{done: make(chan struct{})}
	var out outputs
	out.copy(stdout, outR)
	if errR != outR {
		out.copy(stderr, errR)
	}
	proc.stop = func() { z.stop(proc, id) }
	go func() {
		code := 128 + int(syscall.SIGKILL) // the serving helper died: so did the command
		select {
		case code = <-z.exits:
		case <-z.dead:
			select { // it may have answered before it died
			case code = <-z.exits:
			default:
			}
		}
		// Every process of the command is gone, and with them the
		// streams' write ends: read to the end.
		out.drain()
		z.w.release(z)
		proc.finish(code, nil)
	}()
	go func() {
		select {
		case <-ctx.Done():
			proc.Stop()
		case <-proc.done:
		}
	}()
	return proc, nil
}

// send writes msg to the serving helper with the descriptors in rights
// (one sendmsg: a message of the socket pair, as the helper reads them).
func (z *zygote) send(msg, rights []byte) error {
	rc, err := z.conn.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Write(func(fd uintptr) bool {
		for {
			serr = syscall.Sendmsg(int(fd), msg, rights, nil, 0)
			if serr != syscall.EINTR {
				return serr != syscall.EAGAIN
			}
		}
	})
	if err != nil {
		return err
	}
	return serr
}

// stop ends proc's command as Process.Stop ends a sandbox: SIGTERM to all
// of it, SIGKILL after the grace period (the serving helper does both);
// if the helper does not answer, it is ended with everything in it.
func (z *zygote) stop(proc *Process, id string) {
	_, _ = z.conn.Write([]byte(helper.MsgTerm + "\x00" + id))
	select {
	case <-proc.done:
	case <-time.After(3 * helper.StopGrace):
		z.close()
		z.proc.Stop()
		<-proc.done
	}
}

func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
