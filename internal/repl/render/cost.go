package render

import (
	"fmt"

	"github.com/coder-agent/coder/internal/event"
)

// costFigure is the session's cost for the status line: "$0.0123", or
// "≥ $0.0123" when a model's price is unknown (only the priced calls
// count); "" before anything was priced.
func costFigure(e event.UsageUpdated) string {
	switch {
	case e.CostKnown:
		return fmt.Sprintf("$%.4f", e.CostUSD)
	case e.CostUSD > 0:
		return fmt.Sprintf("≥ $%.4f", e.CostUSD)
	}
	return ""
}
