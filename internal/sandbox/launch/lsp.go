package launch

import (
	"context"
	"io"
	"os/exec"

	"github.com/coder-agent/coder/internal/lsp"
	"github.com/coder-agent/coder/internal/sandbox"
)

// LSPStarter runs language servers in the sandbox profile of a read-only
// command (plan mode's): they read the workspace; the sandbox's writable
// roots (the tool caches, where gopls and the go command keep theirs) and
// the session's temp dir are writable; no network. They take no part in
// guarding the protected paths: they cannot write the workspace.
type LSPStarter struct{ L *Launcher }

// Start implements lsp.Starter.
func (s LSPStarter) Start(argv, env []string, _ string, stderr io.Writer) (lsp.Process, error) {
	p, err := s.L.profile(sandbox.ReadOnly, env)
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

var _ lsp.Starter = LSPStarter{}
