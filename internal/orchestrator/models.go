package orchestrator

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/coder-agent/coder/internal/llm"
)

// modelsTimeout bounds a listing: a person is waiting for it.
const modelsTimeout = 15 * time.Second

// Models lists the ids of the models the provider's endpoint serves (for
// /model), sorted.
func (o *Orchestrator) Models(ctx context.Context) ([]string, error) {
	l, ok := o.opts.Model.Provider.(llm.ModelLister)
	if !ok {
		return nil, errors.New("this provider cannot list its models")
	}
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	infos, err := l.ListModels(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(infos))
	for _, m := range infos {
		ids = append(ids, m.ID)
	}
	sort.Strings(ids)
	return ids, nil
}
