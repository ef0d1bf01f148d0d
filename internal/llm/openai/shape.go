package openai

import (
	"fmt"

	"github.com/coder-agent/coder/internal/llm/catalog"
)

// shape is what the catalog says about the request's model on this
// endpoint: its limits and effort levels (the model's entry) and the
// endpoint's request rules (catalog.RulesFor: stream_options, the
// output-limit parameter, what reasoning goes back). An unknown model on
// an unknown endpoint gets what every compatible server accepts:
// max_tokens as configured, the configured effort, reasoning echoed in
// the field it came in.
type shape struct {
	model catalog.Model
	known bool
	rules catalog.Rules
}

func (p *Provider) shapeFor(model string) shape {
	m, known := catalog.Lookup(p.cfg.Catalog, model)
	return shape{model: m, known: known, rules: catalog.RulesFor(p.cfg.Catalog, model)}
}

// historyKey names the encoding of history messages under these rules:
// a message is encoded again when the rules for what goes back change.
func (sh shape) historyKey() string {
	return fmt.Sprint(sh.rules.PassBack == nil, sh.rules.PassBack, sh.rules.Required)
}

// apply sets stream_options, the output limit and the reasoning effort.
func (sh shape) apply(body *chatRequest, reqMax int, cfg Config) {
	if sh.rules.StreamOptions {
		body.StreamOptions = &streamOptions{IncludeUsage: true}
	}
	n := reqMax
	if n <= 0 {
		n = cfg.MaxTokens
	}
	if sh.known {
		n = sh.model.CapOutput(n)
	}
	if sh.rules.TokenParam == catalog.MaxCompletionTokens {
		body.MaxCompletionTokens = n
	} else {
		body.MaxTokens = n
	}
	if e := cfg.ReasoningEffort; e != "" && (!sh.known || sh.model.Reasoning == catalog.ReasoningEffort) {
		// A model known not to take an effort would reject the field.
		body.ReasoningEffort = sh.model.Effort(e)
	}
}
