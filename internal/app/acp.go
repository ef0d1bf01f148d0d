package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"

	"github.com/coder-agent/coder/internal/acp"
	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/version"
)

// runACP is `coder acp`: coder as an Agent Client Protocol agent on stdio,
// for editors. Each editor thread gets the assembly the REPL gets (build),
// with the editor as its front end. Nothing but protocol messages reaches
// stdout; diagnostics go to stderr, which editors keep in their logs.
func runACP(ctx context.Context, f flags, stdio IO, env func(string) (string, bool)) int {
	switch {
	case len(f.args) > 1:
		return fail(stdio, setupError{fmt.Errorf("unexpected argument %q after acp", f.args[1])})
	case f.resume != "":
		return fail(stdio, setupError{errors.New("--resume does not apply to coder acp: the editor loads a session by its id (session/load); --continue continues the most recent one")})
	}
	out, wd, done, err := protocolIO(f, stdio)
	if err != nil {
		return fail(stdio, err)
	}
	defer done()
	log := slog.New(slog.NewTextHandler(stdio.Err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	_ = acp.Serve(ctx, acp.Options{
		In: stdio.In, Out: out, Log: log, Version: version.Version, Cwd: wd, Continue: f.continueLast,
		Factory: &acpFactory{f: f, env: env},
	})
	if ctx.Err() != nil {
		return ExitCancelled
	}
	return ExitOK
}

// protocolIO is what a protocol server on stdio (coder acp, coder mcp
// serve) needs: the stream for its messages alone (protocolStdout) and
// the directory it serves by default (--cwd, else the current one); done
// releases the stream.
func protocolIO(f flags, stdio IO) (out io.Writer, wd string, done func(), err error) {
	wd, err = os.Getwd()
	if err != nil {
		return nil, "", nil, fmt.Errorf("current directory: %w", err)
	}
	if f.cwd != "" {
		wd = absUnder(wd, f.cwd)
	}
	out, done = stdio.Out, func() {}
	if stdio.OutFile != nil && stdio.OutFile.Fd() == 1 {
		proto, err := protocolStdout()
		if err != nil {
			return nil, "", nil, err
		}
		out, done = proto, func() { proto.Close() }
	}
	return out, wd, done, nil
}

func absUnder(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// acpFactory builds one assembly per editor thread, for its workspace.
type acpFactory struct {
	f   flags
	env func(string) (string, bool)
}

// Open loads the configuration of req.Cwd and builds the core as the REPL
// does; the editor's MCP servers join the configured ones (the editor's
// wins a name both use) and its buffers serve the file tools.
func (a *acpFactory) Open(ctx context.Context, req acp.OpenRequest) (_ *acp.Runtime, err error) {
	f := a.f
	f.cwd = req.Cwd
	b, err := loadBase(f, a.env)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	b.files, b.terminals = req.Front.Files, req.Front.Terminals
	b.cfg.MCP.Servers = withEditorServers(b.cfg.MCP.Servers, req.MCPServers)
	asm, err := build(ctx, b, orchestrator.Front{Sink: req.Front.Sink, Questioner: req.Front.Questioner,
		Approver: editorApprover(b.cfg.Approval, req.Front.Approver)})
	if err != nil {
		return nil, err
	}
	catalog, err := agent.NewCatalog(definitions(b.cfg.Agents.Definitions))
	if err != nil {
		asm.Close()
		return nil, setupError{err}
	}
	// Closing a thread ends what its session started, as leaving the REPL
	// does: SessionEnd hooks, background tasks, the sandbox's temp dir, MCP.
	out := &acp.Runtime{Core: asm.orch, Input: asm.input, Sessions: b.store, Workspace: asm.workspace,
		Close: func() { asm.Close(); b.Close() }}
	for _, name := range catalog.Names() {
		if ag, ok := catalog.Lookup(name); ok {
			out.Agents = append(out.Agents, ag)
		}
	}
	for _, c := range asm.input.Infos() {
		cmd := acp.Command{Name: c.Name, Description: c.Summary}
		if c.Custom {
			cmd.Hint = "arguments"
		}
		out.Commands = append(out.Commands, cmd)
	}
	for _, w := range asm.warnings {
		out.Warnings = append(out.Warnings, w.Error())
	}
	return out, nil
}

// List lists the stored sessions of the workspace at cwd.
func (a *acpFactory) List(ctx context.Context, cwd string) (string, []session.Summary, error) {
	f := a.f
	f.cwd = cwd
	b, err := loadBase(f, a.env)
	if err != nil {
		return "", nil, err
	}
	defer b.Close()
	if err := b.openedStore(); err != nil {
		return "", nil, err
	}
	sums, err := b.store.List(ctx, 0)
	return b.cfg.Runtime.WorkspaceRoot, sums, err
}

// editorApprover follows the approval settings as the REPL does: the
// editor asks the person unless approvals are configured away.
func editorApprover(ap config.Approval, person permission.Approver) permission.Approver {
	switch {
	case !ap.Interactive:
		return permission.NonInteractive{AllowDanger: ap.AllowDanger}
	case ap.AutoApproveAsk:
		return permission.AutoApproveAsks{Person: person}
	}
	return person
}

func withEditorServers(own map[string]config.MCPServer, editor []acp.MCPServer) map[string]config.MCPServer {
	if len(editor) == 0 {
		return own
	}
	out := maps.Clone(own)
	if out == nil {
		out = map[string]config.MCPServer{}
	}
	for _, s := range editor {
		out[s.Name] = config.MCPServer{Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers}
	}
	return out
}
