// Package mcpserve is `coder mcp serve`: coder as an MCP server on stdio,
// so another agent can hand it a task as a tool call. The `coder` tool runs
// one headless turn in a workspace (as `coder -p` would, under the person's
// own configuration and policy: nobody is there to approve what needs a
// person, so that is refused) and answers with the result, the files the
// turn changed and the session id; `coder_reply` continues that session.
// While a turn runs the caller gets progress notifications (when it asked
// for them); cancelling the request cancels the turn.
//
// The protocol layer is the official MCP Go SDK; the turn itself is the
// program's (Runner), built as for -p.
package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
)

// Request is one turn another agent asks for.
type Request struct {
	Prompt string
	// Cwd is the workspace, absolute; the program's own directory when "".
	Cwd string
	// Mode is build, plan or a configured agent; "" is the configured default.
	Mode string
	// Model overrides the configured model when set.
	Model string
	// SessionID continues that session (coder_reply); "" starts one.
	SessionID string
}

// Result is what a turn left, as the caller receives it (the tool's
// structured output; its text is the answer).
type Result struct {
	SessionID string `json:"session_id"`
	Result    string `json:"result"`
	IsError   bool   `json:"is_error"`
	Error     string `json:"error,omitempty"`
	// FilesChanged are the workspace-relative paths the turn changed, each
	// as "M path (+3 -1)", "A path" or "D path".
	FilesChanged []string   `json:"files_changed"`
	Verification string     `json:"verification,omitempty"`
	NumTurns     int        `json:"num_turns"`
	DurationMS   int64      `json:"duration_ms"`
	Usage        chat.Usage `json:"usage"`
}

// Runner runs one turn; events reports its progress as it goes. An error
// means the turn could not be set up (bad configuration, unknown session):
// a turn that ran and failed is a Result with IsError.
type Runner interface {
	Run(ctx context.Context, req Request, events event.Sink) (Result, error)
}

// Options configure Serve.
type Options struct {
	In      io.ReadCloser
	Out     io.WriteCloser
	Runner  Runner
	Version string
	// Cwd is the workspace of calls that name none.
	Cwd string
}

// Serve answers MCP requests on o.In and o.Out until the client closes the
// stream or ctx ends.
func Serve(ctx context.Context, o Options) error {
	srv := newServer(o)
	err := srv.Run(ctx, &mcp.IOTransport{Reader: o.In, Writer: o.Out})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// server holds what the calls share: where each session lives, and a lock
// per session so two calls never run the same one at once.
type server struct {
	o        Options
	mu       sync.Mutex
	sessions map[string]*sessionSlot
}

type sessionSlot struct {
	mu  sync.Mutex
	cwd string
}

// coderArgs are the `coder` tool's arguments.
type coderArgs struct {
	Prompt string `json:"prompt" jsonschema:"the task, as a person would type it to coder"`
	Cwd    string `json:"cwd,omitempty" jsonschema:"absolute path of the workspace (default: the directory coder mcp serve runs in)"`
	Mode   string `json:"mode,omitempty" jsonschema:"build (change code and run commands; the default) or plan (analyse only; nothing changes)"`
	Model  string `json:"model,omitempty" jsonschema:"the model to use (default: the configured one)"`
}

// replyArgs are `coder_reply`'s.
type replyArgs struct {
	SessionID string `json:"session_id" jsonschema:"the session_id a coder call returned"`
	Prompt    string `json:"prompt" jsonschema:"the next message of that session"`
	Cwd       string `json:"cwd,omitempty" jsonschema:"the session's workspace, when it was started outside this server"`
}

const coderDescription = `Hand a coding task to coder, a terminal AI coding agent, in a workspace: it reads, searches, edits and tests the code there with its own tools, inside its sandbox and under its user's permission policy (nothing that needs a person's approval runs), then answers. Returns the answer, the files it changed and a session_id for coder_reply.`

const replyDescription = `Continue a coder session with another message (the session_id from a coder call): coder keeps the conversation and works on from where it stopped.`

func newServer(o Options) *mcp.Server {
	s := &server{o: o, sessions: map[string]*sessionSlot{}}
	ms := mcp.NewServer(&mcp.Implementation{Name: "coder", Title: "coder", Version: o.Version}, nil)
	mcp.AddTool(ms, &mcp.Tool{Name: "coder", Description: coderDescription},
		func(ctx context.Context, req *mcp.CallToolRequest, a coderArgs) (*mcp.CallToolResult, Result, error) {
			return s.call(ctx, req, Request{Prompt: a.Prompt, Cwd: a.Cwd, Mode: a.Mode, Model: a.Model})
		})
	mcp.AddTool(ms, &mcp.Tool{Name: "coder_reply", Description: replyDescription},
		func(ctx context.Context, req *mcp.CallToolRequest, a replyArgs) (*mcp.CallToolResult, Result, error) {
			if strings.TrimSpace(a.SessionID) == "" {
				return failure(errors.New("session_id is required (the session_id a coder call returned)"))
			}
			return s.call(ctx, req, Request{Prompt: a.Prompt, Cwd: a.Cwd, SessionID: a.SessionID})
		})
	return ms
}

// call runs one turn and shapes its answer.
func (s *server) call(ctx context.Context, req *mcp.CallToolRequest, r Request) (*mcp.CallToolResult, Result, error) {
	if strings.TrimSpace(r.Prompt) == "" {
		return failure(errors.New("prompt is empty"))
	}
	cwd, slot, err := s.place(r)
	if err != nil {
		return failure(err)
	}
	r.Cwd = cwd
	if slot != nil {
		slot.mu.Lock()
		defer slot.mu.Unlock()
	}
	res, err := s.o.Runner.Run(ctx, r, newProgress(ctx, req))
	if err != nil {
		return failure(err)
	}
	s.remember(res.SessionID, cwd)
	text := res.Result
	if res.IsError {
		text = "coder failed: " + res.Error
	}
	if len(res.FilesChanged) > 0 {
		text += "\n\nFiles changed: " + strings.Join(res.FilesChanged, ", ")
	}
	text += "\n\nsession_id: " + res.SessionID
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: res.IsError}, res, nil
}

// place is the workspace of r, and the lock of the session it continues.
func (s *server) place(r Request) (string, *sessionSlot, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var slot *sessionSlot
	cwd := r.Cwd
	if r.SessionID != "" {
		slot = s.sessions[r.SessionID]
		if slot == nil {
			slot = &sessionSlot{}
			s.sessions[r.SessionID] = slot
		}
		if cwd == "" {
			cwd = slot.cwd
		}
	}
	if cwd == "" {
		cwd = s.o.Cwd
	}
	if !filepath.IsAbs(cwd) {
		return "", nil, fmt.Errorf("cwd %q is not an absolute path", cwd)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return "", nil, fmt.Errorf("cwd %q is not a directory", cwd)
	}
	return filepath.Clean(cwd), slot, nil
}

func (s *server) remember(id, cwd string) {
	if id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slot := s.sessions[id]; slot != nil {
		slot.cwd = cwd
		return
	}
	s.sessions[id] = &sessionSlot{cwd: cwd}
}

// failure is a call that could not run, told to the caller as a tool error
// (its model can read and fix it), not a protocol error.
func failure(err error) (*mcp.CallToolResult, Result, error) {
	msg := "coder: " + err.Error()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true},
		Result{IsError: true, Error: err.Error(), FilesChanged: []string{}}, nil
}
