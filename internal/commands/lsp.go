package commands

import "context"

// lsp shows the language servers: their state and latest diagnostics.
func (x *Dispatcher) lsp(context.Context, string) (string, error) {
	if x.deps.LSP == nil {
		return "language servers are off in this session (lsp.enabled is false, or an editor holds the files)", nil
	}
	return x.deps.LSP.Describe(), nil
}
