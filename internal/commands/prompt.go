package commands

import (
	"context"
	"errors"

	"github.com/coder-agent/coder/internal/input"
	"github.com/coder-agent/coder/internal/orchestrator"
)

// RunPrompt runs a request with images given apart from its text
// (--image, an editor's image blocks). A custom command takes them into
// the turn it expands to; a built-in command has no use for them.
func (x *Dispatcher) RunPrompt(ctx context.Context, p orchestrator.Prompt) (orchestrator.Outcome, error) {
	line := input.Parse(p.Text)
	if len(p.Images) == 0 {
		return x.RunInput(ctx, line.Text)
	}
	if line.Kind != input.Command {
		return x.core.RunPrompt(ctx, orchestrator.Prompt{Text: line.Text, Images: p.Images})
	}
	if c, ok := x.customCommand(line.Name); ok {
		return x.core.RunPrompt(ctx, orchestrator.Prompt{Text: c.Expand(line.Args), Images: p.Images})
	}
	return x.failed(errors.New("images go with a request to the model; /" + line.Name + " takes none"))
}
