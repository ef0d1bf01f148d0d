package acp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

// server is the ACP agent: the SDK calls its methods, each request on a
// goroutine of its own, notifications (session/cancel) in order.
type server struct {
	o    Options
	log  *slog.Logger
	out  *wireOut
	conn *sdk.AgentSideConnection
	// ctx lives as long as the connection.
	ctx context.Context

	mu        sync.Mutex
	sessions  map[string]*acpSession
	client    sdk.ClientCapabilities
	continued bool // --continue was used up by the first session/new
}

var _ sdk.Agent = (*server)(nil)
var _ sdk.AgentLoader = (*server)(nil)

// Serve speaks ACP on o.In and o.Out until the editor closes the stream or
// ctx ends; then every running turn is cancelled and every session saved
// and closed.
func Serve(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &server{o: o, log: o.Log, out: newWireOut(o.Out), ctx: ctx, sessions: map[string]*acpSession{}}
	in, start := screen(o.In, srv.out, o.Log)
	defer in.Close()
	srv.conn = sdk.NewAgentSideConnection(srv, srv.out, in)
	srv.conn.SetLogger(o.Log)
	start() // after conn is set: the handlers use it
	select {
	case <-srv.conn.Done():
	case <-ctx.Done():
	}
	cancel()
	srv.closeAll()
	return nil
}

// guard turns a panic in a handler into an internal error for the editor;
// the connection and the other sessions go on.
func (srv *server) guard(what string, err *error) {
	if p := recover(); p != nil {
		srv.log.Error("internal error", "in", what, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		*err = &sdk.RequestError{Code: codeInternalError, Message: fmt.Sprintf("internal error in %s: %v", what, p)}
	}
}

func (srv *server) closeAll() {
	srv.mu.Lock()
	all := make([]*acpSession, 0, len(srv.sessions))
	for id, s := range srv.sessions {
		all = append(all, s)
		delete(srv.sessions, id)
	}
	srv.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(s.shutdown)
	}
	wg.Wait()
}

func (srv *server) session(id sdk.SessionId) (*acpSession, error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if s := srv.sessions[string(id)]; s != nil {
		return s, nil
	}
	return nil, &sdk.RequestError{Code: codeNotFound, Message: fmt.Sprintf("no open session %q (session/new or session/load first)", id)}
}

// register makes s reachable under its id, closing a session already open
// under it (an editor loading a thread twice): two cores must never write
// one session.
func (srv *server) register(s *acpSession) {
	srv.mu.Lock()
	old := srv.sessions[s.sessionID()]
	srv.sessions[s.sessionID()] = s
	srv.mu.Unlock()
	if old != nil && old != s {
		old.shutdown()
	}
}

func (srv *server) unregister(id string) *acpSession {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	s := srv.sessions[id]
	delete(srv.sessions, id)
	return s
}

// Initialize negotiates the version: ACP v1 is what coder speaks, so an
// editor asking for another is told 1 and decides.
func (srv *server) Initialize(_ context.Context, p sdk.InitializeRequest) (resp sdk.InitializeResponse, err error) {
	defer srv.guard("initialize", &err)
	srv.mu.Lock()
	srv.client = p.ClientCapabilities
	srv.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentInfo:       &sdk.Implementation{Name: "coder", Title: sdk.Ptr("coder"), Version: srv.o.Version},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{EmbeddedContext: true},
			McpCapabilities:    sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{
				List: &sdk.SessionListCapabilities{}, Resume: &sdk.SessionResumeCapabilities{},
				Close: &sdk.SessionCloseCapabilities{},
			},
		},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate: coder takes its provider keys from its configuration and
// the environment; there is nothing to authenticate here.
func (srv *server) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// open builds a session's runtime for the workspace at cwd.
func (srv *server) open(ctx context.Context, cwd string, servers []sdk.McpServer) (*acpSession, error) {
	if !filepath.IsAbs(cwd) {
		return nil, &sdk.RequestError{Code: codeInvalidParams, Message: fmt.Sprintf("cwd %q is not an absolute path", cwd)}
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, &sdk.RequestError{Code: codeInvalidParams, Message: fmt.Sprintf("cwd %q is not a directory", cwd)}
	}
	mcp, skipped := mcpServers(servers)
	s := newSession(srv)
	rt, err := srv.o.Factory.Open(ctx, OpenRequest{Cwd: cwd, MCPServers: mcp, Front: Front{
		Sink: s, Approver: approver{s}, Questioner: questioner{s}, Files: srv.files(s), Terminals: srv.terminals(s),
	}})
	if err != nil {
		return nil, &sdk.RequestError{Code: codeInternalError, Message: err.Error()}
	}
	for _, name := range skipped {
		rt.Warnings = append(rt.Warnings, "MCP server "+name+" was not started: coder connects to stdio and HTTP servers only")
	}
	s.attach(rt)
	return s, nil
}

// files are the editor's fs methods where it offers them.
func (srv *server) files(s *acpSession) tools.Files {
	srv.mu.Lock()
	fsc := srv.client.Fs
	srv.mu.Unlock()
	if !fsc.ReadTextFile && !fsc.WriteTextFile {
		return nil
	}
	return clientFiles{s: s, read: fsc.ReadTextFile, write: fsc.WriteTextFile}
}

// terminals are the editor's terminals where it offers them.
func (srv *server) terminals(s *acpSession) Terminals {
	srv.mu.Lock()
	offered := srv.client.Terminal
	srv.mu.Unlock()
	if !offered {
		return nil
	}
	return s.createTerminal
}

// NewSession starts a coder session in cwd; with --continue, the first one
// continues the workspace's most recent session instead.
func (srv *server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (resp sdk.NewSessionResponse, err error) {
	defer srv.guard("session/new", &err)
	s, err := srv.open(ctx, p.Cwd, p.McpServers)
	if err != nil {
		return resp, err
	}
	var resumed *session.Session
	if srv.takeContinue() {
		resumed, err = srv.continueLatest(ctx, s)
		if err != nil {
			s.shutdown()
			return resp, err
		}
	}
	id := s.rt.Core.Session().ID
	s.setID(id)
	srv.register(s)
	srv.out.afterResponse(id, func() {
		if resumed != nil {
			s.sendAll(s.m.replay(resumed))
		}
		s.greet()
		s.start()
	})
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(id), Modes: s.modes()}, nil
}

func (srv *server) takeContinue() bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if !srv.o.Continue || srv.continued {
		return false
	}
	srv.continued = true
	return true
}

// continueLatest switches s to the workspace's most recent session, if
// there is one.
func (srv *server) continueLatest(ctx context.Context, s *acpSession) (*session.Session, error) {
	latest, err := s.rt.Sessions.Latest(ctx)
	if errors.Is(err, session.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, &sdk.RequestError{Code: codeInternalError, Message: err.Error()}
	}
	if err := s.rt.Core.Resume(ctx, latest); err != nil {
		return nil, &sdk.RequestError{Code: codeInternalError, Message: err.Error()}
	}
	return latest, nil
}

// LoadSession continues a stored coder session (its id is coder's own) and
// replays its history as updates before answering.
func (srv *server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (resp sdk.LoadSessionResponse, err error) {
	defer srv.guard("session/load", &err)
	s, err := srv.resume(ctx, string(p.SessionId), p.Cwd, p.McpServers)
	if err != nil {
		return resp, err
	}
	s.sendAll(s.m.replay(s.rt.Core.Session()))
	s.greet()
	return sdk.LoadSessionResponse{Modes: s.modes()}, nil
}

// ResumeSession continues a stored session without replaying it.
func (srv *server) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (resp sdk.ResumeSessionResponse, err error) {
	defer srv.guard("session/resume", &err)
	s, err := srv.resume(ctx, string(p.SessionId), p.Cwd, p.McpServers)
	if err != nil {
		return resp, err
	}
	s.greet()
	return sdk.ResumeSessionResponse{Modes: s.modes()}, nil
}

func (srv *server) resume(ctx context.Context, id, cwd string, servers []sdk.McpServer) (*acpSession, error) {
	if !session.ValidID(id) {
		return nil, &sdk.RequestError{Code: codeInvalidParams, Message: fmt.Sprintf("%q is not a coder session id", id)}
	}
	// Loading a thread this server has open replaces it: the open one ends
	// first (its SessionEnd hooks run), so it gives up owning the session
	// that the loaded one is to write.
	if old := srv.unregister(id); old != nil {
		old.shutdown()
	}
	s, err := srv.open(ctx, cwd, servers)
	if err != nil {
		return nil, err
	}
	stored, err := s.rt.Sessions.Load(ctx, id)
	if err == nil {
		s.setID(id)
		// Resume runs the SessionStart hooks (source resume) before the
		// answer, as it replays the history.
		err = s.rt.Core.Resume(ctx, stored)
	}
	if err != nil {
		s.shutdown()
		code := codeInternalError
		if errors.Is(err, session.ErrNotFound) {
			code = codeNotFound
		}
		return nil, &sdk.RequestError{Code: code, Message: err.Error()}
	}
	srv.register(s)
	return s, nil
}

// ListSessions lists coder's stored sessions of a workspace, newest first.
func (srv *server) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (resp sdk.ListSessionsResponse, err error) {
	defer srv.guard("session/list", &err)
	cwd := srv.o.Cwd
	if p.Cwd != nil && *p.Cwd != "" {
		cwd = *p.Cwd
	}
	ws, sums, err := srv.o.Factory.List(ctx, cwd)
	if err != nil {
		return resp, &sdk.RequestError{Code: codeInternalError, Message: err.Error()}
	}
	sort.SliceStable(sums, func(i, j int) bool { return sums[i].Updated.After(sums[j].Updated) })
	resp.Sessions = []sdk.SessionInfo{}
	for _, sum := range sums {
		info := sdk.SessionInfo{SessionId: sdk.SessionId(sum.ID), Cwd: ws, UpdatedAt: sdk.Ptr(sum.Updated.UTC().Format(time.RFC3339))}
		if sum.Title != "" {
			info.Title = sdk.Ptr(sum.Title)
		}
		resp.Sessions = append(resp.Sessions, info)
	}
	return resp, nil
}

// CloseSession cancels the session's turn and releases it.
func (srv *server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (resp sdk.CloseSessionResponse, err error) {
	defer srv.guard("session/close", &err)
	if s := srv.unregister(string(p.SessionId)); s != nil {
		s.shutdown()
	}
	return resp, nil
}

// Prompt runs the prompt as input typed at the REPL would run.
func (srv *server) Prompt(ctx context.Context, p sdk.PromptRequest) (resp sdk.PromptResponse, err error) {
	defer srv.guard("session/prompt", &err)
	s, err := srv.session(p.SessionId)
	if err != nil {
		return resp, err
	}
	input, err := promptInput(p.Prompt, s.workspace())
	if err != nil {
		return resp, err
	}
	stop, usage, err := s.runTurn(ctx, input)
	return sdk.PromptResponse{StopReason: stop, Usage: usage}, err
}

// Cancel is session/cancel: Esc for that session's running turn.
func (srv *server) Cancel(_ context.Context, p sdk.CancelNotification) (err error) {
	defer srv.guard("session/cancel", &err)
	if s, _ := srv.session(p.SessionId); s != nil {
		s.cancelTurn()
	}
	return nil
}

// SetSessionMode switches the agent (build, plan or a custom one).
func (srv *server) SetSessionMode(_ context.Context, p sdk.SetSessionModeRequest) (resp sdk.SetSessionModeResponse, err error) {
	defer srv.guard("session/set_mode", &err)
	s, err := srv.session(p.SessionId)
	if err != nil {
		return resp, err
	}
	for _, a := range s.rt.Agents {
		if a.Name == string(p.ModeId) {
			s.setMode(a)
			return resp, nil
		}
	}
	return resp, &sdk.RequestError{Code: codeInvalidParams, Message: fmt.Sprintf("unknown mode %q", p.ModeId)}
}

// SetSessionConfigOption: coder offers no config options (the model is
// switched with /model).
func (srv *server) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, &sdk.RequestError{Code: codeInvalidParams, Message: "coder has no session config options; use /model and session/set_mode"}
}

// mcpServers converts the editor's MCP servers. Transports coder does not
// offer (SSE, ACP) are skipped, and named so the person is told.
func mcpServers(in []sdk.McpServer) (out []MCPServer, skipped []string) {
	for _, m := range in {
		switch {
		case m.Stdio != nil:
			s := MCPServer{Name: m.Stdio.Name, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: map[string]string{}}
			for _, e := range m.Stdio.Env {
				s.Env[e.Name] = e.Value
			}
			out = append(out, s)
		case m.Http != nil:
			s := MCPServer{Name: m.Http.Name, URL: m.Http.Url, Headers: map[string]string{}}
			for _, h := range m.Http.Headers {
				s.Headers[h.Name] = h.Value
			}
			out = append(out, s)
		case m.Sse != nil:
			skipped = append(skipped, m.Sse.Name+" (SSE)")
		case m.Acp != nil:
			skipped = append(skipped, m.Acp.Name+" (ACP)")
		}
	}
	return out, skipped
}
