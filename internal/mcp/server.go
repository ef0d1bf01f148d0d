package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/tools"
)

// maxRestarts is how many times a server that died (crash, broken pipe, a
// call that timed out) is started again, on the next call to one of its
// tools. One restart rides out a one-off crash; a server that keeps dying
// then fails fast instead of stalling every call for StartTimeout.
const maxRestarts = 1

// server is one configured server and its connection state. mu guards every
// field below it and is held across a start, so concurrent first calls share
// one start; calls themselves run without it.
type server struct {
	name string
	cfg  config.MCPServer
	m    *Manager

	mu       sync.Mutex
	started  bool  // a start finished (successfully or not)
	startErr error // why the first start failed
	conn     *conn // the live connection; nil when not running
	remote   []*sdk.Tool
	dead     error // why the last connection died
	restarts int
}

// ensure starts the server once and returns its tools.
func (s *server) ensure(ctx context.Context) ([]*sdk.Tool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		err := s.startLocked(ctx)
		// A start the caller cancelled is not the server's fault: try again
		// next time rather than remember the failure.
		if err == nil || ctx.Err() == nil {
			s.started, s.startErr = true, err
		}
		if err != nil {
			return nil, err
		}
	}
	return s.remote, s.startErr
}

// startLocked connects and lists the tools, bounded by StartTimeout and the
// manager's lifetime.
func (s *server) startLocked(ctx context.Context) error {
	if err := s.m.ctx.Err(); err != nil {
		return fmt.Errorf("mcp server %q: the MCP manager is closed", s.name)
	}
	ctx, cancel := context.WithTimeout(ctx, s.m.opts.StartTimeout)
	defer cancel()
	stop := context.AfterFunc(s.m.ctx, cancel)
	defer stop()
	began := time.Now()
	c, err := dial(ctx, s.cfg, s.m.opts, s.exited)
	if err == nil {
		var list []*sdk.Tool
		list, err = listTools(ctx, c.sess)
		if err != nil {
			c.abort()
			if c.proc != nil {
				err = c.proc.withStderr(err)
			}
		} else {
			s.conn, s.remote, s.dead = c, list, nil
			s.m.logf("mcp server %q: started in %v, %d tools", s.name, time.Since(began).Round(time.Millisecond), len(list))
			return nil
		}
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %v (%w)", s.m.opts.StartTimeout, err)
	}
	return fmt.Errorf("mcp server %q: failed to start: %w", s.name, err)
}

func listTools(ctx context.Context, sess *sdk.ClientSession) ([]*sdk.Tool, error) {
	var list []*sdk.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		list = append(list, t)
	}
	return list, nil
}

// session returns the live connection, restarting a dead server if it still
// has a restart left.
func (s *server) session(ctx context.Context) (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.m.ctx.Err() != nil:
		return nil, fmt.Errorf("mcp server %q: the MCP manager is closed", s.name)
	case s.conn != nil:
		return s.conn, nil
	case s.dead == nil:
		// Never started, or its first start failed.
		if s.startErr != nil {
			return nil, s.startErr
		}
		if err := s.startLocked(ctx); err != nil {
			return nil, err
		}
		s.started = true
		return s.conn, nil
	case s.restarts >= maxRestarts:
		return nil, fmt.Errorf("mcp server %q is not running: %v (it was already restarted %d time(s); fix the server and restart coder)", s.name, s.dead, s.restarts)
	}
	s.restarts++
	s.m.logf("mcp server %q: restarting after: %v", s.name, s.dead)
	if err := s.startLocked(ctx); err != nil {
		if ctx.Err() != nil {
			s.restarts-- // the caller gave up; the restart is still owed
		}
		return nil, fmt.Errorf("%w (restarting after: %v)", err, s.dead)
	}
	return s.conn, nil
}

// exited is called when a stdio server's process ends on its own.
func (s *server) exited(c *conn, cause error) { s.markDead(c, cause) }

// markDead retires c if it is still the live connection. The identity check
// keeps a late report about an old connection from killing its replacement.
func (s *server) markDead(c *conn, cause error) {
	s.mu.Lock()
	if s.conn != c {
		s.mu.Unlock()
		return
	}
	s.conn, s.dead = nil, cause
	// Added under mu, so that Close (which takes mu in s.close before it
	// waits) either sees this stop or finds no connection to retire.
	s.m.stopping.Add(1)
	s.mu.Unlock()
	s.m.logf("mcp server %q: stopped: %v", s.name, cause)
	// In the background, so the failing call returns at once; Close waits.
	go func() {
		defer s.m.stopping.Done()
		c.close()
	}()
}

// call runs one tool call. Every failure is a Result: the model can go on
// without this server.
func (s *server) call(ctx context.Context, remote string, args json.RawMessage) tools.Result {
	c, err := s.session(ctx)
	if err != nil {
		return tools.Failure("%v", err)
	}
	cctx, cancel := context.WithTimeout(ctx, s.m.opts.CallTimeout)
	defer cancel()
	res, err := c.sess.CallTool(cctx, &sdk.CallToolParams{Name: remote, Arguments: args})
	if err == nil {
		return toResult(res, s.m.opts.MaxOutputBytes)
	}
	var wire *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		return tools.Failure("mcp server %q: call to %s cancelled", s.name, remote)
	case errors.As(err, &wire):
		// The server answered with an error: it is alive and well.
		return tools.Failure("mcp server %q: %s: %v", s.name, remote, err)
	case cctx.Err() != nil:
		// A wedged server would pile up stuck calls; stop it.
		err = fmt.Errorf("no answer within %v", s.m.opts.CallTimeout)
	case c.proc != nil && c.proc.waitExit(200*time.Millisecond):
		err = c.proc.exitError()
	}
	s.markDead(c, err)
	return tools.Failure("mcp server %q failed during the call: %v; %s", s.name, err, s.restartHint())
}

func (s *server) restartHint() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.restarts < maxRestarts {
		return "the server was stopped and will be restarted on the next call"
	}
	return "the server was stopped and will not be restarted"
}

// close stops the server for good.
func (s *server) close() {
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	if s.dead == nil {
		s.dead = errors.New("closed")
	}
	s.mu.Unlock()
	if c != nil {
		c.close()
	}
}

// status reports the server's state for /mcp or /tools.
func (s *server) status() (state string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.conn != nil:
		return "running", nil
	case s.startErr != nil:
		return "failed", s.startErr
	case s.dead != nil:
		return "stopped", s.dead
	default:
		return "not started", nil
	}
}
