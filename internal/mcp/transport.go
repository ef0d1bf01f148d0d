package mcp

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coder-agent/coder/internal/config"
)

// conn is one live session with a server, and its process for stdio.
type conn struct {
	sess *sdk.ClientSession
	proc *process // nil for HTTP servers
	once sync.Once
}

// close ends the session and, for stdio, the whole process group. The
// session is closed concurrently with the stop sequence because the SDK's
// Close may wait on a server that no longer reads.
func (c *conn) close() {
	c.once.Do(func() {
		done := make(chan struct{})
		go func() {
			if c.sess != nil {
				_ = c.sess.Close()
			}
			close(done)
		}()
		if c.proc != nil {
			c.proc.stop()
		}
		select {
		case <-done:
		case <-time.After(stopGrace):
		}
	})
}

// abort ends a connection whose start failed, without a grace period.
func (c *conn) abort() {
	c.once.Do(func() {
		if c.proc != nil {
			c.proc.kill()
		}
		if c.sess != nil {
			go c.sess.Close()
		}
	})
}

// transportKind names how a server is reached: "stdio", "http" or "sse".
func transportKind(s config.MCPServer) string {
	switch {
	case s.Command != "":
		return "stdio"
	case strings.EqualFold(s.Type, "sse"):
		return "sse"
	default:
		return "http"
	}
}

// dial starts or reaches the server and completes the MCP handshake. onExit
// is called if a stdio server's process exits on its own later.
func dial(ctx context.Context, s config.MCPServer, opts Options, onExit func(*conn, error)) (*conn, error) {
	s = expandServer(s)
	if s.Command != "" && s.URL != "" {
		return nil, errors.New(`both "command" and "url" are set; use one`)
	}
	if s.Command == "" && s.URL == "" {
		return nil, errors.New(`neither "command" (stdio) nor "url" (HTTP) is set`)
	}
	c := &conn{}
	var t sdk.Transport
	if s.Command != "" {
		// The callback must not touch c's fields: it may run before dial
		// returns. c serves only as the connection's identity.
		base := os.Environ()
		if opts.Environ != nil {
			keep := map[string]bool{}
			for k := range s.Env {
				keep[k] = true
			}
			base = opts.Environ(keep)
		}
		p, err := startProcess(s.Command, s.Args, mergeEnv(base, s.Env), opts.Cwd, func(p *process) { onExit(c, p.exitError()) })
		if err != nil {
			return nil, err
		}
		c.proc = p
		t = &sdk.IOTransport{Reader: p.stdout, Writer: p.stdin}
	} else {
		t = httpTransport(s)
	}
	// No roots capability: a server such as server-filesystem would replace
	// the directories it was configured with by the (empty) roots we offer.
	client := sdk.NewClient(&sdk.Implementation{Name: "coder", Version: "1"},
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	sess, err := client.Connect(ctx, t, nil)
	if err != nil {
		c.abort()
		if c.proc != nil {
			err = c.proc.withStderr(err)
		}
		return nil, err
	}
	c.sess = sess
	return c, nil
}

func httpTransport(s config.MCPServer) sdk.Transport {
	hc := &http.Client{Transport: headerTransport{headers: s.Headers, base: http.DefaultTransport}}
	if transportKind(s) == "sse" {
		return &sdk.SSEClientTransport{Endpoint: s.URL, HTTPClient: hc}
	}
	// No standalone SSE stream: coder acts on no server-initiated message
	// (tool lists are read once), and an idle long-poll per server is waste.
	return &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxRetries: 2, DisableStandaloneSSE: true}
}

// headerTransport adds the configured headers (usually Authorization) to
// every request the SDK makes.
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range h.headers {
			r.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(r)
}

// expandServer expands ${VAR} and ${VAR:-default} in every string of s, as
// Claude Code does for .mcp.json, so that tokens stay out of the file.
func expandServer(s config.MCPServer) config.MCPServer {
	s.Command = expandVars(s.Command)
	s.URL = expandVars(s.URL)
	s.Args = append([]string(nil), s.Args...)
	for i, a := range s.Args {
		s.Args[i] = expandVars(a)
	}
	s.Env = expandMap(s.Env)
	s.Headers = expandMap(s.Headers)
	return s
}

func expandMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = expandVars(v)
	}
	return out
}

// expandVars replaces ${NAME} and ${NAME:-default}. A bare $NAME is left
// alone: arguments never pass through a shell, so a literal $ is meant.
func expandVars(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		name, def, hasDef := strings.Cut(s[i+2:i+j], ":-")
		v, ok := os.LookupEnv(name)
		if (!ok || v == "") && hasDef {
			v = def
		}
		b.WriteString(v)
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}
