package orchestrator

import (
	"context"
	"time"

	"github.com/coder-agent/coder/internal/llm"
)

// modelsTimeout bounds a listing: a person is waiting for it.
const modelsTimeout = 15 * time.Second

// Models lists the ids of the models for /model, sorted: those the
// provider's endpoint serves (GET /v1/models) merged with those the
// catalog knows for it (llm.ListModels). When the endpoint cannot list,
// the catalog's are returned with the error.
func (o *Orchestrator) Models(ctx context.Context) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, modelsTimeout)
	defer cancel()
	infos, err := llm.ListModels(ctx, o.opts.Model.Provider, o.opts.Model.Catalog)
	ids := make([]string, 0, len(infos))
	for _, m := range infos {
		ids = append(ids, m.ID)
	}
	return ids, err
}
