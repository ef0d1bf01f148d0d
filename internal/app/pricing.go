package app

import (
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm/catalog"
)

// price is what u cost on model at the session's provider, from the model
// catalog; ok is false when the catalog has no price for it.
func (rt *runtime) price(model string, u chat.Usage) (usd float64, ok bool) {
	return catalog.Price(rt.catalog, model, u)
}
