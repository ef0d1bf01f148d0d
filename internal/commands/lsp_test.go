package commands

import (
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/lsp"
)

// /lsp says when the servers are off, and otherwise shows what the
// session's servers report.
func TestLSPShowsTheServers(t *testing.T) {
	e := newEnv(t)
	if out, err := e.do(t, "/lsp"); err != nil || !strings.HasPrefix(out, "language servers are off") {
		t.Fatalf("/lsp while off: %q %v", out, err)
	}
	m := lsp.New(lsp.Options{Root: t.TempDir(), Servers: []lsp.Spec{{Name: "gopls", Command: "no-such-gopls", Patterns: []string{"*.go"}}}})
	defer m.Close()
	e.cmds.deps.LSP = m
	out, err := e.do(t, "/lsp")
	if err != nil || !strings.Contains(out, "gopls") || !strings.Contains(out, "not installed (no-such-gopls not found on PATH)") {
		t.Fatalf("/lsp: %q %v", out, err)
	}
}
