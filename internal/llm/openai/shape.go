package openai

import "github.com/coder-agent/coder/internal/llm/catalog"

// shape is what the catalog says about the request's model: which
// parameter limits the output and up to what, whether reasoning_effort
// applies, and what reasoning goes back. An unknown model gets what every
// compatible server accepts: max_tokens as configured, the configured
// effort, reasoning echoed in the field it came in.
type shape struct {
	model    catalog.Model
	known    bool
	provider string
	passBack passBack
}

// passBack says what reasoning an assistant message carries back.
type passBack struct {
	// none: the endpoint rejects reasoning fields in input (Groq, Cerebras).
	none bool
	// legacyField receives the text of a message stored before reasoning
	// blocks existed, when the model requires it back.
	legacyField string
}

func (p *Provider) shapeFor(model string) shape {
	m, known := catalog.Lookup(p.cfg.Catalog, model)
	sh := shape{model: m, known: known, provider: p.cfg.Catalog}
	if info, ok := catalog.ProviderInfo(p.cfg.Catalog); ok && info.PassBack == catalog.PassBackNone {
		sh.passBack.none = true
	}
	if known {
		sh.passBack.none = sh.passBack.none || m.PassBack == catalog.PassBackNone
		sh.passBack.legacyField = m.PassBack
	}
	return sh
}

// apply sets the output limit and the reasoning effort.
func (sh shape) apply(body *chatRequest, reqMax int, cfg Config) {
	n := reqMax
	if n <= 0 {
		n = cfg.MaxTokens
	}
	if sh.known {
		n = sh.model.CapOutput(n)
	}
	// OpenAI's reasoning models reject max_tokens; max_completion_tokens
	// works for all of OpenAI's models, and only there.
	if sh.model.TokenParam() == catalog.MaxCompletionTokens || (!sh.known && sh.provider == "openai") {
		body.MaxCompletionTokens = n
	} else {
		body.MaxTokens = n
	}
	if e := cfg.ReasoningEffort; e != "" && (!sh.known || sh.model.Reasoning == catalog.ReasoningEffort) {
		// A model known not to take an effort would reject the field.
		body.ReasoningEffort = sh.model.Effort(e)
	}
}
