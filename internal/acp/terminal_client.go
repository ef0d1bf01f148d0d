package acp

import (
	"context"
	"errors"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// TerminalCommand is a command to run in the editor's terminal
// (terminal/create). Env holds KEY=VALUE entries the editor adds to the
// command's environment.
type TerminalCommand struct {
	Command string
	Args    []string
	Env     []string
	Cwd     string
	// OutputLimit is how many bytes of output the editor keeps (its end,
	// when there is more); 0 leaves it to the editor.
	OutputLimit int
}

// TerminalExit is how a terminal's command ended: its exit code, or the
// signal that ended it.
type TerminalExit struct {
	Code   *int
	Signal string
}

// Terminals starts commands in the editor's terminals; nil in a Front
// means the editor offers none.
type Terminals func(ctx context.Context, c TerminalCommand) (*Terminal, error)

// Terminal is a command running in one of the editor's terminals. Its
// methods use the connection, not a prompt's context: a cancelled turn must
// still be able to kill and release what it started.
type Terminal struct {
	s  *acpSession
	id string
}

// terminalCallTimeout bounds one terminal method other than waiting.
const terminalCallTimeout = 10 * time.Second

// createTerminal is the session's Terminals.
func (s *acpSession) createTerminal(ctx context.Context, c TerminalCommand) (*Terminal, error) {
	req := sdk.CreateTerminalRequest{SessionId: sdk.SessionId(s.sessionID()), Command: c.Command, Args: c.Args}
	if c.Args == nil {
		req.Args = []string{}
	}
	if c.Cwd != "" {
		req.Cwd = sdk.Ptr(c.Cwd)
	}
	if c.OutputLimit > 0 {
		req.OutputByteLimit = sdk.Ptr(c.OutputLimit)
	}
	for _, kv := range c.Env {
		name, value, _ := strings.Cut(kv, "=")
		req.Env = append(req.Env, sdk.EnvVariable{Name: name, Value: value})
	}
	resp, err := s.srv.conn.CreateTerminal(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp.TerminalId == "" {
		return nil, errors.New("the editor created a terminal without an id")
	}
	return &Terminal{s: s, id: resp.TerminalId}, nil
}

// ID is the editor's id of the terminal.
func (t *Terminal) ID() string { return t.id }

func (t *Terminal) sid() sdk.SessionId { return sdk.SessionId(t.s.sessionID()) }

// Wait waits for the command to exit (terminal/wait_for_exit), for ctx to
// end, or for the connection to.
func (t *Terminal) Wait(ctx context.Context) (TerminalExit, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(t.s.srv.ctx, cancel)
	defer stop()
	resp, err := t.s.srv.conn.WaitForTerminalExit(ctx, sdk.WaitForTerminalExitRequest{SessionId: t.sid(), TerminalId: t.id})
	if err != nil {
		return TerminalExit{}, err
	}
	ex := TerminalExit{Code: resp.ExitCode}
	if resp.Signal != nil {
		ex.Signal = *resp.Signal
	}
	return ex, nil
}

// Kill ends the command, keeping the terminal (terminal/kill).
func (t *Terminal) Kill() error {
	ctx, cancel := context.WithTimeout(t.s.srv.ctx, terminalCallTimeout)
	defer cancel()
	_, err := t.s.srv.conn.KillTerminal(ctx, sdk.KillTerminalRequest{SessionId: t.sid(), TerminalId: t.id})
	return err
}

// Output is what the terminal kept of the command's output
// (terminal/output); truncated says the editor dropped its beginning.
func (t *Terminal) Output() (output string, truncated bool, err error) {
	ctx, cancel := context.WithTimeout(t.s.srv.ctx, terminalCallTimeout)
	defer cancel()
	resp, err := t.s.srv.conn.TerminalOutput(ctx, sdk.TerminalOutputRequest{SessionId: t.sid(), TerminalId: t.id})
	if err != nil {
		return "", false, err
	}
	return resp.Output, resp.Truncated, nil
}

// Release frees the terminal (terminal/release); the editor keeps showing
// its output in the tool call.
func (t *Terminal) Release() error {
	ctx, cancel := context.WithTimeout(t.s.srv.ctx, terminalCallTimeout)
	defer cancel()
	_, err := t.s.srv.conn.ReleaseTerminal(ctx, sdk.ReleaseTerminalRequest{SessionId: t.sid(), TerminalId: t.id})
	return err
}
