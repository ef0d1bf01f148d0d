package anthropic

import "github.com/coder-agent/coder/internal/llm/catalog"

// effortBudgets turns an effort into a thinking budget for models that
// take only a budget (Claude 4.5 and earlier).
var effortBudgets = map[string]int{"minimal": 1024, "low": 4096, "medium": 10_000, "high": 20_000, "xhigh": 32_000, "max": 32_000}

// shape sets max_tokens and thinking for the model, as the catalog knows
// it:
//
//   - a model that does not reason gets no thinking, whatever is configured
//     (the API rejects it);
//   - a model that takes only adaptive thinking (Claude Opus 4.7 and later)
//     gets {"type":"adaptive"}, with output_config.effort when an effort is
//     configured, for a budget too;
//   - a model that takes both (Claude 4.6) gets adaptive for an effort and
//     enabled+budget_tokens for a budget;
//   - a model that takes only a budget gets enabled+budget_tokens, an effort
//     turned into a budget;
//   - an unknown model gets enabled+budget_tokens for a budget, as before.
//
// max_tokens defaults to DefaultMaxTokens (ThinkingMaxTokens with thinking
// on), never above the model's output limit, and stays above the budget.
func (p *Provider) shape(body *request) {
	m, known := catalog.Lookup(p.cfg.Catalog, body.Model)
	effort, budget := p.cfg.Effort, p.cfg.ThinkingBudget
	if effort == "none" || (known && !m.Reasons()) {
		effort, budget = "", 0
	}
	switch {
	case known && m.Reasoning == catalog.ReasoningAdaptive && (effort != "" || (budget > 0 && !m.Budget)):
		body.Thinking = &thinking{Type: "adaptive"}
		if effort != "" {
			body.OutputConfig = &outputConfig{Effort: m.Effort(effort)}
		}
		budget = 0
	case budget > 0:
		body.Thinking = &thinking{Type: "enabled", BudgetTokens: budget}
	case effort != "" && known && m.Budget:
		budget = effortBudgets[m.Effort(effort)]
		if budget == 0 {
			budget = effortBudgets["medium"]
		}
		body.Thinking = &thinking{Type: "enabled", BudgetTokens: budget}
	}
	body.MaxTokens = maxTokens(body.MaxTokens, p.cfg.MaxTokens, body.Thinking != nil, m)
	if budget > 0 && body.MaxTokens <= budget {
		// The API wants budget_tokens < max_tokens: raise max_tokens to
		// make room for an answer, or, at the model's limit, shrink the
		// budget (never below the API's minimum of 1024).
		body.MaxTokens = m.CapOutput(budget + DefaultMaxTokens)
		if body.MaxTokens <= budget {
			budget = max(1024, body.MaxTokens-DefaultMaxTokens/2)
			body.Thinking.BudgetTokens = min(budget, body.MaxTokens-1)
		}
	}
}

// maxTokens is the request's max_tokens, else the configured one, else
// the default, capped at the model's output limit.
func maxTokens(req, cfg int, thinking bool, m catalog.Model) int {
	n := req
	if n <= 0 {
		n = cfg
	}
	if n <= 0 {
		n = DefaultMaxTokens
		if thinking {
			n = ThinkingMaxTokens
		}
	}
	return m.CapOutput(n)
}
