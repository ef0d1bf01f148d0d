package app

import (
	"slices"
	"time"

	"github.com/coder-agent/coder/internal/commands"
	"github.com/coder-agent/coder/internal/lsp"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/sandbox/launch"
)

// newLSP builds the session's language servers from lsp.*; nil when they
// are off, or when the file tools work on an editor's buffers (coder acp),
// which the servers would not see. Nothing starts here: a server starts
// when a file of its language is first edited.
func newLSP(b *base, l *launch.Launcher, environ func() []string) *lsp.Manager {
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
		Starter:   launch.LSPStarter{L: l},
		Environ:   environ,
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
