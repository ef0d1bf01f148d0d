// Package mcp connects coder to Model Context Protocol servers (stdio and
// streamable HTTP) through the official Go SDK and offers their tools as
// tools.Tool values named mcp__<server>__<tool>.
//
// Servers start lazily, on the first Tools call, never at program start-up.
// A server that fails to start is reported and left out; one that dies
// during a call (crash, broken pipe, timeout) is stopped, restarted once on
// the next call, and after a second death its tools fail fast.
package mcp

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/tools"
)

// Fallbacks for zero Options fields. The configured values come from the
// config package; these only keep a zero Options usable.
const (
	fallbackStartTimeout = 10 * time.Second
	fallbackCallTimeout  = 2 * time.Minute
	fallbackMaxOutput    = 64 << 10
)

// Options tune a Manager.
type Options struct {
	// Cwd is the working directory of stdio servers: the workspace.
	Cwd string
	// StartTimeout bounds starting one server and listing its tools.
	StartTimeout time.Duration
	// CallTimeout bounds one tool call; a server that does not answer in
	// time is considered wedged and stopped.
	CallTimeout time.Duration
	// MaxOutputBytes caps the text of one tool result.
	MaxOutputBytes int
	// Logf, when set, receives one line per start, stop and restart.
	Logf func(format string, args ...any)
	// Environ is the environment a stdio server starts from, before its
	// configured env: keep names the server's own variables, which pass
	// even when they look secret. nil means coder's own environment. coder
	// passes its environment without credentials: a server gets a key only
	// when its config names it.
	Environ func(keep map[string]bool) []string
}

// Manager owns the configured servers. It is safe for concurrent use.
type Manager struct {
	opts    Options
	servers []*server // sorted by name
	ctx     context.Context
	cancel  context.CancelFunc
	// stopping tracks connections being stopped after they died.
	stopping sync.WaitGroup
}

// NewManager returns a manager for servers. Nothing is started yet.
func NewManager(servers map[string]config.MCPServer, opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = fallbackStartTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = fallbackCallTimeout
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = fallbackMaxOutput
	}
	m := &Manager{opts: opts}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	for name, cfg := range servers {
		m.servers = append(m.servers, &server{name: name, cfg: cfg, m: m})
	}
	slices.SortFunc(m.servers, func(a, b *server) int { return cmp.Compare(a.name, b.name) })
	return m
}

func (m *Manager) logf(format string, args ...any) {
	if m.opts.Logf != nil {
		m.opts.Logf(format, args...)
	}
}

// Tools starts every server not started yet (in parallel, each bounded by
// StartTimeout) and returns the tools of those running, servers in name
// order. Each server that failed to start is one error; a failure is
// remembered, so later calls return at once.
func (m *Manager) Tools(ctx context.Context) ([]tools.Tool, []error) {
	lists := make([][]tools.Tool, len(m.servers))
	errs := make([]error, len(m.servers))
	var wg sync.WaitGroup
	for i, s := range m.servers {
		wg.Go(func() {
			remote, err := s.ensure(ctx)
			if err != nil {
				errs[i] = err
				return
			}
			lists[i] = adapters(s, remote)
		})
	}
	wg.Wait()
	var out []tools.Tool
	var problems []error
	seen := map[string]bool{}
	for i, list := range lists {
		if errs[i] != nil {
			problems = append(problems, errs[i])
		}
		for _, t := range list {
			if seen[t.Name()] {
				problems = append(problems, fmt.Errorf("mcp server %q: tool %q left out: the name %s is already taken", m.servers[i].name, t.(*tool).remote, t.Name()))
				continue
			}
			seen[t.Name()] = true
			out = append(out, t)
		}
	}
	return out, problems
}

// ServerStatus describes one configured server.
type ServerStatus struct {
	Name string
	// Transport is "stdio", "http" or "sse".
	Transport string
	// State is "not started", "running", "failed" (never started) or
	// "stopped" (died or closed).
	State string
	// Tools are the exposed names of its tools, once listed.
	Tools []string
	// Err says why the server failed or stopped.
	Err error
}

// Status reports every configured server without starting any.
func (m *Manager) Status() []ServerStatus {
	out := make([]ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		st := ServerStatus{Name: s.name, Transport: transportKind(s.cfg)}
		st.State, st.Err = s.status()
		s.mu.Lock()
		remote := s.remote
		s.mu.Unlock()
		for _, t := range remote {
			st.Tools = append(st.Tools, toolName(s.name, t.Name))
		}
		out = append(out, st)
	}
	return out
}

// Close stops every server (stdio process groups included) and waits for
// them. A start in progress is abandoned. Later calls fail with a message.
func (m *Manager) Close() {
	m.cancel()
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Go(s.close)
	}
	wg.Wait()
	m.stopping.Wait()
}
