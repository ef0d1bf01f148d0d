package orchestrator

import (
	"context"

	"github.com/coder-agent/coder/internal/llm"
)

// Models lists the models the provider's endpoint serves (for /model).
func (o *Orchestrator) Models(ctx context.Context) ([]string, error) {
	l, ok := o.opts.Model.Provider.(llm.ModelLister)
	if !ok {
		return nil, llm.ErrNoModelList
	}
	return l.ListModels(ctx)
}
