package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// state is where a server is in its life.
type state int

const (
	stateMissing  state = iota // its command is not installed
	stateStarting              // started, not yet initialized
	stateRunning
	stateFailed // could not start, or stopped on its own
	stateStopped
)

// server is one language server of the session. Its fields are guarded by
// the manager's mutex; its process is written to by one goroutine only
// (ops), so a server that stops reading never blocks a caller.
type server struct {
	spec    Spec
	state   state
	reason  string // why it is missing or failed
	told    bool   // the model was told it failed
	slow    bool   // the model was told it is slow
	started time.Time
	// answered: it has had its first edit, whose longer wait covers the
	// start; later edits wait the normal bound.
	answered bool
	proc     Process
	cl       *client
	stderr   tail
	ops      chan func(*client)
	docs     map[string]*doc
}

// opsQueue bounds the work waiting for a server; a server so far behind
// is stuck, and is stopped.
const opsQueue = 256

// initTimeout bounds a server's start (the initialize handshake). An edit
// waits at most its own bound; the start goes on in the background.
const initTimeout = 2 * time.Minute

// serverLocked is spec's server, started on first use.
func (m *Manager) serverLocked(spec Spec) *server {
	if s := m.servers[spec.Name]; s != nil {
		return s
	}
	s := &server{spec: spec, docs: map[string]*doc{}, started: time.Now()}
	m.servers[spec.Name] = s
	if m.closed {
		s.state = stateStopped
		return s
	}
	path, err := m.opts.LookPath(spec.Command)
	if err != nil {
		s.state, s.reason = stateMissing, fmt.Sprintf("%s is not installed (not found on PATH)", spec.Command)
		return s
	}
	s.state = stateStarting
	go m.start(s, path)
	return s
}

// start runs the server and the initialize handshake, then serves its
// queue until it ends.
func (m *Manager) start(s *server, path string) {
	argv := append([]string{path}, s.spec.Args...)
	proc, err := m.opts.Starter.Start(argv, m.environ(s.spec), m.root(), &s.stderr)
	if err != nil {
		m.fail(s, fmt.Sprintf("could not start %s: %v", s.spec.Command, err))
		return
	}
	m.mu.Lock()
	s.proc = proc // Close stops it from now on, even mid-handshake
	stopped := s.state != stateStarting
	m.mu.Unlock()
	if stopped {
		proc.Stop()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), initTimeout)
	defer cancel()
	cl, err := dial(ctx, proc, clientOptions{root: m.root(), initOptions: s.spec.InitOptions,
		settings: s.spec.Settings, onDiag: func(p published) { m.published(s, p) }})
	if err != nil {
		reason := fmt.Sprintf("%s did not start: %v%s", s.spec.Command, err, s.stderr.gist())
		select {
		case <-proc.Done():
			reason = fmt.Sprintf("%s exited as it started%s", s.spec.Command, exitText(proc.Err(), s.stderr.gist()))
		case <-time.After(100 * time.Millisecond): // an exit closes the pipe just before it is seen
		}
		proc.Stop()
		m.fail(s, reason)
		return
	}
	m.mu.Lock()
	if s.state != stateStarting { // the session ended meanwhile
		m.mu.Unlock()
		cl.shutdown(ctx)
		proc.Stop()
		return
	}
	s.state, s.cl, s.ops = stateRunning, cl, make(chan func(*client), opsQueue)
	for _, d := range s.docs {
		m.openLocked(s, d)
	}
	m.changedLocked()
	m.mu.Unlock()
	go m.watch(s, proc)
	for {
		select {
		case op := <-s.ops:
			op(cl)
		case <-proc.Done():
			return
		}
	}
}

// watch marks a server that ended on its own as failed.
func (m *Manager) watch(s *server, proc Process) {
	<-proc.Done()
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.state == stateRunning {
		s.state = stateFailed
		s.reason = fmt.Sprintf("%s stopped unexpectedly%s", s.spec.Command, exitText(proc.Err(), s.stderr.gist()))
		m.changedLocked()
	}
}

// fail marks a server that could not start.
func (m *Manager) fail(s *server, reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.state == stateStarting {
		s.state, s.reason = stateFailed, reason
	}
	m.changedLocked()
}

// enqueueLocked hands op to the server's goroutine. A server whose queue
// is full has stopped keeping up: it is stopped, not waited for.
func (m *Manager) enqueueLocked(s *server, op func(*client)) bool {
	if s.state != stateRunning {
		return false
	}
	select {
	case s.ops <- op:
		return true
	default:
		s.state, s.reason = stateFailed, s.spec.Command+" stopped answering; coder stopped it"
		go s.proc.Stop()
		m.changedLocked()
		return false
	}
}

// environ is a server's environment: coder's (as the options give it)
// plus the configured variables.
func (m *Manager) environ(spec Spec) []string {
	env := m.opts.Environ()
	for k, v := range spec.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// stop ends a server: shutdown and exit when it answers in time, then its
// process and everything it started.
func stop(cl *client, proc Process) {
	if cl != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		cl.shutdown(ctx)
		cancel()
	}
	if proc != nil {
		proc.Stop()
	}
}

func exitText(err error, gist string) string {
	var ee *exec.ExitError
	text := ""
	switch {
	case errors.As(err, &ee):
		text = " (" + ee.ProcessState.String() + ")"
	case err != nil:
		text = " (" + err.Error() + ")"
	}
	return text + gist
}

// readText reads a file the model changed; found is false when it does not
// exist. Files too large to be source are not sent to servers.
func readText(path string) (text string, found bool, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxFile {
		return "", false, fmt.Errorf("%s is not a source file coder sends to language servers", path)
	}
	b, err := os.ReadFile(path)
	return string(b), err == nil, err
}

// maxFile bounds the files sent to servers.
const maxFile = 4 << 20
