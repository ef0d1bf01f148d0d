package commands

import (
	"context"
	"errors"
	"strings"

	"github.com/coder-agent/coder/internal/orchestrator"
)

// RunPrompt runs a request with images given apart from its text
// (--image, an editor's image blocks). A custom command takes them into
// the turn it expands to; a built-in command has no use for them.
func (x *Dispatcher) RunPrompt(ctx context.Context, p orchestrator.Prompt) (orchestrator.Outcome, error) {
	in := strings.TrimSpace(p.Text)
	if len(p.Images) == 0 {
		return x.RunInput(ctx, in)
	}
	if !strings.HasPrefix(in, "/") {
		return x.core.RunPrompt(ctx, orchestrator.Prompt{Text: in, Images: p.Images})
	}
	name, args, _ := strings.Cut(strings.TrimPrefix(in, "/"), " ")
	if c, ok := x.customCommand(name); ok {
		return x.core.RunPrompt(ctx, orchestrator.Prompt{Text: c.Expand(strings.TrimSpace(args)), Images: p.Images})
	}
	return x.failed(errors.New("images go with a request to the model; /" + name + " takes none"))
}
