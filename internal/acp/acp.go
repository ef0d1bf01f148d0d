// Package acp is coder as an Agent Client Protocol agent: an editor (Zed, a
// JetBrains IDE, Neovim, …) starts `coder acp` and talks JSON-RPC to it over
// stdio. It is one more front end of the core, like the REPL and the headless
// printers: it turns the core's events into session/update notifications,
// asks the editor for approvals and answers (session/request_permission),
// serves the file tools from the editor's buffers (fs/*), and runs the
// editor's prompts through the same dispatcher as typed input.
//
// The protocol layer is github.com/coder/acp-go-sdk; this package screens
// what reaches it (a malformed line is answered with a JSON-RPC error, not
// dropped) and keeps panics from ending the connection.
package acp

import (
	"context"
	"io"
	"log/slog"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

// Core is what a session uses of the orchestrator.
type Core interface {
	Status() orchestrator.Status
	SetAgent(a agent.Agent)
	// RequestAgent switches the agent before the running turn's next model
	// call; ApplyRequestedAgent applies what no call took, between inputs.
	RequestAgent(a agent.Agent)
	ApplyRequestedAgent()
	Session() *session.Session
	Resume(ctx context.Context, s *session.Session) error
	// StartSession runs a new session's SessionStart hooks, once.
	StartSession(ctx context.Context)
	Decode(tc chat.ToolCall) *tools.Call
}

// Input runs one input as if typed at the REPL: / commands, ! commands and
// turns (the commands dispatcher).
type Input interface {
	RunInput(ctx context.Context, input string) (orchestrator.Outcome, error)
}

// Sessions is a workspace's session store.
type Sessions interface {
	Load(ctx context.Context, id string) (*session.Session, error)
	Latest(ctx context.Context) (*session.Session, error)
}

// Command is a / command offered to the editor.
type Command struct {
	Name, Description string
	// Hint, when set, says the command takes arguments and what they are.
	Hint string
}

// Runtime is the core of one ACP session, built by the program for a
// workspace (see Factory).
type Runtime struct {
	Core     Core
	Input    Input
	Sessions Sessions
	// Agents are the modes the session can switch to, build and plan first.
	Agents   []agent.Agent
	Commands []Command
	// Workspace is the absolute workspace root.
	Workspace string
	// Warnings are shown once the session starts (skills or commands that
	// could not be read).
	Warnings []string
	// Close releases the runtime (MCP servers, the session store).
	Close func()
	// Price prices model calls for usage_update; nil reports no cost.
	Price Pricer
}

// Front is who the core talks to in one session: the orchestrator gets the
// sink, the approver and the questioner, the file tools get Files.
type Front struct {
	Sink       event.Sink
	Approver   permission.Approver
	Questioner orchestrator.Questioner
	// Files serves read/write/edit/patch from the editor's buffers; nil
	// means the disk.
	Files tools.Files
	// Terminals runs the model's commands in the editor's terminals, where
	// it offers them (the program still runs each inside its sandbox);
	// nil means coder runs them itself.
	Terminals Terminals
}

// MCPServer is an MCP server the editor passes with a session; it joins the
// servers of coder's own configuration.
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// OpenRequest asks for the runtime of a session in the workspace at Cwd.
type OpenRequest struct {
	Cwd        string
	MCPServers []MCPServer
	Front      Front
}

// Factory builds runtimes; the program (package app) implements it with the
// same composition as the REPL's.
type Factory interface {
	Open(ctx context.Context, req OpenRequest) (*Runtime, error)
	// List returns the workspace root for cwd and its stored sessions,
	// newest first.
	List(ctx context.Context, cwd string) (workspace string, sessions []session.Summary, err error)
}

// Options configure Serve.
type Options struct {
	// In and Out are the protocol stream (the editor's end of stdio).
	In  io.Reader
	Out io.Writer
	// Log receives diagnostics; it must not write to Out.
	Log     *slog.Logger
	Factory Factory
	// Version is coder's version, told to the editor at initialize.
	Version string
	// Cwd is the directory session/list looks in when the editor names none.
	Cwd string
	// Continue makes the first session/new continue the most recent session
	// of its workspace (coder acp --continue), its history replayed.
	Continue bool
}
