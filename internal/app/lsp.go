package app

import (
	"context"
	"io"
	"os/exec"
	"slices"
	"time"

	"github.com/coder-agent/coder/internal/commands"
	"github.com/coder-agent/coder/internal/lsp"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/tools"
)

// newLSP builds the session's language servers from lsp.*; nil when they
// are off, or when the file tools work on an editor's buffers (coder acp),
// which the servers would not see. Nothing starts here: a server starts
// when a file of its language is first edited.
func newLSP(b *base, launch *launcher, environ func() []string) *lsp.Manager {
	c := b.cfg.LSP
	if !c.Enabled || b.files != nil {
		return nil
	}
	var specs []lsp.Spec
	for name, s := range c.Servers {
		if !s.Disabled {
			specs = append(specs, lsp.Spec{Name: name, Command: s.Command, Args: slices.Clone(s.Args),
				Patterns: s.Patterns, Env: s.Env, InitOptions: s.InitOptions, Settings: s.Settings})
		}
	}
	return lsp.New(lsp.Options{
		Root:      b.cfg.Runtime.WorkspaceRoot,
		Servers:   specs,
		Wait:      time.Duration(c.WaitMS) * time.Millisecond,
		StartWait: time.Duration(c.StartWaitMS) * time.Millisecond,
		Warnings:  c.Warnings,
		Starter:   lspStarter{launch},
		Environ:   environ,
	})
}

// lspStarter runs language servers in the sandbox profile of a read-only
// command (plan mode's): they read the workspace; the sandbox's writable
// roots (the tool caches, where gopls and the go command keep theirs) and
// the session's temp dir are writable; no network. They take no part in
// guarding the protected paths: they cannot write the workspace.
type lspStarter struct{ l *launcher }

// Start implements lsp.Starter.
func (s lspStarter) Start(argv, env []string, _ string, stderr io.Writer) (lsp.Process, error) {
	p, err := s.l.profile(&tools.Call{ReadOnlyWorkspace: true}, env)
	if err != nil {
		return nil, err
	}
	// A server lives as long as the session, not a call.
	cmd, err := sandbox.Command(context.Background(), p, argv)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = stderr
	return lsp.StartPiped(cmd, func(c *exec.Cmd) (lsp.Waiter, error) {
		proc, err := sandbox.Start(c)
		if err != nil {
			return nil, err
		}
		return proc, nil
	})
}

// lspDiagnostics and lspStatus hand the servers on without making a nil
// manager a non-nil interface.
func lspDiagnostics(m *lsp.Manager) orchestrator.Diagnostics {
	if m == nil {
		return nil
	}
	return m
}

func lspStatus(m *lsp.Manager) commands.LSPStatus {
	if m == nil {
		return nil
	}
	return m
}
