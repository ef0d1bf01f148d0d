package commands

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/coder-agent/coder/internal/orchestrator"
)

// cost is /cost: the session's tokens and what they cost, model by model,
// priced from the model catalog ("unknown" where it has no price), and
// what this run (this process) spent of it.
func (x *Dispatcher) cost(context.Context, string) (string, error) {
	s := x.core.SessionSpend()
	if len(s) == 0 {
		return "no model calls in this session yet", nil
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "model\tcalls\tinput\tcache read\tcache write\toutput\tcost\t")
	for _, m := range s {
		u := m.Usage
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t\n", m.Model, m.Calls, u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens, usd(m))
	}
	u := s.Usage()
	total := fmt.Sprintf("$%.4f", s.TotalUSD())
	if !s.Complete() {
		total += " + unknown"
	}
	fmt.Fprintf(w, "total\t\t%d\t%d\t%d\t%d\t%s\t\n", u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens, total)
	_ = w.Flush()
	if run := x.core.RunSpend(); len(run) > 0 {
		fmt.Fprintf(&b, "this run (since coder started): $%.4f\n", run.TotalUSD())
	}
	b.WriteString("tokens as the provider counted them; prices from coder's model catalog, per million tokens")
	return b.String(), nil
}

func usd(m orchestrator.ModelSpend) string {
	if !m.Priced {
		return "unknown"
	}
	return fmt.Sprintf("$%.4f", m.CostUSD)
}
