package app

import (
	"context"
	"errors"
	"io"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/mcpserve"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/undo"
	"github.com/coder-agent/coder/internal/version"
)

// runMCPServe is `coder mcp serve`: coder as an MCP server on stdio, for
// other agents. Each tool call is one headless turn, built as -p builds
// it; --trust, --model and --mode on the command line apply to every call.
func runMCPServe(ctx context.Context, f flags, stdio IO, env func(string) (string, bool)) int {
	if len(f.args) != 2 || f.args[1] != "serve" {
		return fail(stdio, setupError{errors.New("usage: coder mcp serve (coder as an MCP server on stdio)")})
	}
	if f.resume != "" || f.continueLast {
		return fail(stdio, setupError{errors.New("--resume and --continue do not apply to coder mcp serve: callers continue a session with coder_reply")})
	}
	out, wd, done, err := protocolIO(f, stdio)
	if err != nil {
		return fail(stdio, err)
	}
	defer done()
	err = mcpserve.Serve(ctx, mcpserve.Options{In: readCloser{stdio.In}, Out: nopWriteCloser{out}, Version: version.Version, Cwd: wd,
		Runner: &mcpRunner{f: f, env: env}})
	if err != nil {
		return fail(stdio, err)
	}
	if ctx.Err() != nil {
		return ExitCancelled
	}
	return ExitOK
}

// mcpRunner runs the MCP tools' turns.
type mcpRunner struct {
	f   flags
	env func(string) (string, bool)
}

// Run runs one turn in req.Cwd as `coder -p` would there, with the headless
// approver (nobody to ask: danger and runs outside the sandbox refused).
func (r *mcpRunner) Run(ctx context.Context, req mcpserve.Request, sink event.Sink) (mcpserve.Result, error) {
	f := r.f
	f.cwd, f.resume = req.Cwd, req.SessionID
	if req.Model != "" {
		f.model = req.Model
	}
	if req.Mode != "" {
		f.mode = req.Mode
	}
	b, err := loadBase(f, r.env)
	if err != nil {
		return mcpserve.Result{}, err
	}
	defer b.Close()
	asm, err := build(ctx, b, orchestrator.Front{Sink: sink,
		Approver: permission.NonInteractive{AllowDanger: b.cfg.Approval.AllowDanger}})
	if err != nil {
		return mcpserve.Result{}, err
	}
	defer asm.Close()
	if err := asm.startSession(ctx, f); err != nil {
		return mcpserve.Result{}, err
	}
	id := asm.orch.Session().ID
	before := newestUndoTurn(ctx, b.store, id)
	out, runErr := asm.input.RunInput(ctx, req.Prompt)
	asm.end("other")
	res := mcpserve.Result{SessionID: id, Result: out.Result, IsError: runErr != nil, Verification: out.Verification,
		NumTurns: out.Steps, DurationMS: out.Duration.Milliseconds(), Usage: out.Usage}
	if runErr != nil {
		res.Error = orDefault(out.Reason, runErr.Error())
	}
	// The turn's changes are read after it, whatever its outcome: a failed
	// or cancelled turn may have changed files too.
	res.FilesChanged, err = changedSince(context.WithoutCancel(ctx), b.store, id, asm.workspace, before)
	if err != nil {
		res.FilesChanged = []string{"(could not list the changed files: " + err.Error() + ")"}
	}
	return res, nil
}

// newestUndoTurn is the newest turn of the session with a snapshot, -1
// when none has one.
func newestUndoTurn(ctx context.Context, store *session.Store, id string) int {
	turns, err := store.UndoTurns(ctx, id)
	if err != nil || len(turns) == 0 {
		return -1
	}
	return turns[0] // newest first
}

// changedSince lists what the session's turns after turn changed in the
// workspace, as undo sees it (file tools and bash alike).
func changedSince(ctx context.Context, store *session.Store, id, workspace string, turn int) ([]string, error) {
	turns, err := store.UndoTurns(ctx, id)
	if err != nil {
		return nil, err
	}
	var entries []session.UndoEntry
	seen := map[string]bool{}
	for _, t := range turns { // newest first; the oldest capture of a path wins below
		if t <= turn {
			break
		}
		es, err := store.LoadUndo(ctx, id, t)
		if err != nil {
			return nil, err
		}
		entries = append(es, entries...)
	}
	var first []session.UndoEntry
	for _, e := range entries {
		if !seen[e.Path] {
			seen[e.Path] = true
			first = append(first, e)
		}
	}
	items, err := undo.Changes(ctx, workspace, first)
	if items == nil {
		items = []string{}
	}
	return items, err
}

func orDefault(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// readCloser and nopWriteCloser give the process's streams the Close the
// MCP transport wants; the process closes them itself at exit.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
