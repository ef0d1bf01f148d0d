package acp

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/event"
)

// shutdownWait bounds how long closing a session waits for its cancelled
// turn to finish (the turn saves the session as it ends).
const shutdownWait = 10 * time.Second

// acpSession is one editor thread: a coder session with its own runtime.
// It is the event sink of its orchestrator.
type acpSession struct {
	srv *server
	// turn holds a token while a prompt turn (or a mode switch, or the
	// session's start) uses the core, which runs one input at a time.
	turn chan struct{}
	// closed is closed when the session shuts down.
	closed    chan struct{}
	closeOnce sync.Once

	mu     sync.Mutex
	id     string
	rt     *Runtime
	m      *mapper
	cancel context.CancelFunc // the running turn's
}

func newSession(srv *server) *acpSession {
	return &acpSession{srv: srv, turn: make(chan struct{}, 1), closed: make(chan struct{})}
}

// start runs a new session's SessionStart hooks with the core to itself.
// session/new answers first: an editor opens the thread at once and a slow
// hook runs while the person types, as Claude Code's adapter lets its CLI
// start in the background. A prompt takes the same token, so it never
// races them: it waits, or, first to the core, runs them itself before its
// input (the core runs them once per session either way), and its input
// carries their context. Closing the session kills them.
func (s *acpSession) start() {
	select {
	case s.turn <- struct{}{}:
	case <-s.closed:
		return
	}
	defer func() { <-s.turn }()
	ctx, done := s.cancellable(s.srv.ctx)
	defer done()
	// After setting cancel: shutdown closes s.closed, then cancels.
	select {
	case <-s.closed:
		return
	default:
	}
	s.rt.Core.StartSession(ctx)
}

// attach gives the session its runtime once the factory built it.
func (s *acpSession) attach(rt *Runtime) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rt = rt
	s.m = newMapper(rt.Workspace, rt.Core.Decode, rt.Price)
}

func (s *acpSession) setID(id string) {
	s.mu.Lock()
	s.id = id
	s.mu.Unlock()
}

func (s *acpSession) sessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.id
}

func (s *acpSession) workspace() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rt == nil {
		return ""
	}
	return s.rt.Workspace
}

// Emit implements event.Sink. Events before the session has its id (none
// are expected) are dropped; a panic while mapping is logged, never let
// through to the core's goroutine.
func (s *acpSession) Emit(e event.Event) {
	defer func() {
		if p := recover(); p != nil {
			s.srv.log.Error("mapping an event failed", "event", e.Kind(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	s.mu.Lock()
	m, id := s.m, s.id
	s.mu.Unlock()
	if m == nil || id == "" {
		return
	}
	s.sendAll(m.updates(e))
}

// sendAll sends updates in order. They outlive the prompt that caused
// them (the editor must hear how a cancelled call ended), so they use the
// connection's context.
func (s *acpSession) sendAll(updates []sdk.SessionUpdate) {
	id := sdk.SessionId(s.sessionID())
	for _, u := range updates {
		if err := s.srv.conn.SessionUpdate(s.srv.ctx, sdk.SessionNotification{SessionId: id, Update: u}); err != nil {
			s.srv.log.Debug("session update not sent", "error", err)
			return
		}
	}
}

func (s *acpSession) sendText(text string) {
	s.sendAll(one(sdk.UpdateAgentMessageText(text)))
}

// runTurn runs one prompt's input, after any turn still running in this
// session. Cancelling ctx is Esc: the model stream, the running tool, a
// pending approval and every queued step stop.
func (s *acpSession) runTurn(ctx context.Context, input string) (sdk.StopReason, *sdk.Usage, error) {
	select {
	case s.turn <- struct{}{}:
	case <-ctx.Done():
		return sdk.StopReasonCancelled, nil, nil
	}
	defer func() {
		s.rt.Core.ApplyRequestedAgent()
		<-s.turn
	}()
	s.rt.Core.ApplyRequestedAgent() // asked for while another input ran
	turnCtx, done := s.cancellable(ctx)
	defer done()
	if msg := refusedCommand(input); msg != "" {
		s.sendText(msg)
		return sdk.StopReasonEndTurn, nil, nil
	}
	s.m.beginTurn()
	out, err := s.rt.Input.RunInput(turnCtx, input)
	lastStop, used := s.m.stopReason()
	stop, err := stopReason(out, err, lastStop)
	return stop, promptUsage(used), err
}

// cancellable is what runs with the turn token held, made cancellable by
// cancelTurn until done.
func (s *acpSession) cancellable(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	s.mu.Lock()
	s.cancel = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		s.cancel = nil
		s.mu.Unlock()
		cancel()
	}
}

// cancelTurn is session/cancel.
func (s *acpSession) cancelTurn() {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// setMode switches now when no input runs; while one does, the core
// switches before its next model call (or when the input ends, if it makes
// none).
func (s *acpSession) setMode(a agent.Agent) {
	select {
	case s.turn <- struct{}{}:
		s.rt.Core.SetAgent(a)
		<-s.turn
	default:
		s.rt.Core.RequestAgent(a)
	}
}

// shutdown cancels the running turn, lets it save the session, and
// releases the runtime.
func (s *acpSession) shutdown() {
	s.closeOnce.Do(func() { close(s.closed) })
	s.cancelTurn()
	s.srv.out.forget(s.sessionID())
	select {
	case s.turn <- struct{}{}:
	case <-time.After(shutdownWait):
		s.srv.log.Warn("a cancelled turn did not end in time; closing its session anyway", "session", s.sessionID())
	}
	s.mu.Lock()
	rt := s.rt
	s.mu.Unlock()
	if rt != nil && rt.Close != nil {
		rt.Close()
	}
}

// modes are the agents as ACP session modes, the current one marked.
func (s *acpSession) modes() *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(s.rt.Core.Status().Agent.Name)}
	for _, a := range s.rt.Agents {
		desc := modeDescription(a)
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(a.Name), Name: a.Name, Description: &desc})
	}
	return st
}

func modeDescription(a agent.Agent) string {
	switch {
	case a.Name == string(agent.Build):
		return "Change code and run commands, under the permission policy; edits are verified"
	case a.Name == string(agent.Plan):
		return "Analyse and plan; nothing in the workspace changes"
	case a.Mode == agent.Plan:
		return "Custom agent (plan mode)"
	}
	return "Custom agent (build mode)"
}

// commandsUpdate is the / command list, without the commands an editor
// thread cannot take (see refusedCommand).
func (s *acpSession) commandsUpdate() sdk.SessionUpdate {
	list := []sdk.AvailableCommand{}
	for _, c := range s.rt.Commands {
		if refusedCommand("/"+c.Name) != "" {
			continue
		}
		ac := sdk.AvailableCommand{Name: c.Name, Description: c.Description}
		if ac.Description == "" {
			ac.Description = "/" + c.Name
		}
		if c.Hint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: c.Hint}}
		}
		list = append(list, ac)
	}
	return sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: list}}
}

// greet sends what a new or loaded session starts with: the command list
// and any warnings.
func (s *acpSession) greet() {
	s.sendAll(one(s.commandsUpdate()))
	for _, w := range s.rt.Warnings {
		s.sendText(notice(w))
	}
}
