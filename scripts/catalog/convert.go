package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/coder-agent/coder/internal/llm/catalog"
)

// apiProvider and apiModel are the parts of models.dev's api.json read here
// (schema: packages/core/src/schema.ts in github.com/anomalyco/models.dev).
type apiProvider struct {
	Name   string              `json:"name"`
	API    string              `json:"api"`
	Models map[string]apiModel `json:"models"`
}

type apiModel struct {
	Reasoning        bool              `json:"reasoning"`
	ReasoningOptions []reasoningOption `json:"reasoning_options"`
	ToolCall         bool              `json:"tool_call"`
	Interleaved      json.RawMessage   `json:"interleaved"` // true, or {"field": "..."}
	Limit            struct {
		Context int `json:"context"`
		Input   int `json:"input"`
		Output  int `json:"output"`
	} `json:"limit"`
	Cost struct {
		Input      float64 `json:"input"`
		Output     float64 `json:"output"`
		CacheRead  float64 `json:"cache_read"`
		CacheWrite float64 `json:"cache_write"`
	} `json:"cost"`
	Modalities struct {
		Output []string `json:"output"`
	} `json:"modalities"`
}

type reasoningOption struct {
	Type   string    `json:"type"` // toggle, effort, budget_tokens
	Values []*string `json:"values"`
}

// providers are the endpoints coder knows by preset or host (the catalog's
// endpoint table), not all of models.dev's. What each endpoint rejects is
// that table's business, not the data's.
var providers = catalog.Endpoints()

// convert turns api.json into the catalog's lines: provider lines ("@id
// {json}") then model lines ("provider model {json}"), sorted, skipping
// models that produce no text (image, embedding, audio models).
func convert(api map[string]apiProvider) ([]string, error) {
	var head, body []string
	for _, pid := range providers {
		p, ok := api[pid]
		if !ok {
			return nil, fmt.Errorf("models.dev has no provider %q", pid)
		}
		b, _ := json.Marshal(catalog.Provider{Name: p.Name, API: p.API})
		head = append(head, "@"+pid+" "+string(b))
		for id, m := range p.Models {
			if strings.ContainsAny(id, " \n") || !slices.Contains(m.Modalities.Output, "text") {
				continue
			}
			b, err := json.Marshal(derive(pid, m))
			if err != nil {
				return nil, err
			}
			body = append(body, pid+" "+id+" "+string(b))
		}
	}
	sort.Strings(body)
	return append(head, body...), nil
}

// derive applies coder's rules to one model: a line of the catalog, as
// the runtime reads it (catalog.Model).
func derive(provider string, m apiModel) catalog.Model {
	e := catalog.Model{
		Context: m.Limit.Context, Input: m.Limit.Input, Output: m.Limit.Output,
		Reasoning: catalog.ReasoningNone,
		Cost:      catalog.Cost{Input: m.Cost.Input, Output: m.Cost.Output, CacheRead: m.Cost.CacheRead, CacheWrite: m.Cost.CacheWrite},
	}
	// OpenAI: max_tokens is deprecated and rejected by reasoning models
	// (o-series, gpt-5); max_completion_tokens works for every model.
	// Reasoning models are served first by the Responses API, the only way
	// to keep their reasoning between calls (Codex CLI speaks only it).
	if provider == "openai" {
		e.Tokens = catalog.MaxCompletionTokens
		e.Responses = m.Reasoning
	}
	if m.Reasoning {
		e.Reasoning, e.Efforts, e.Budget = style(provider, m.ReasoningOptions)
	}
	e.PassBack = passBack(m.Interleaved)
	return e
}

// style is how the model is asked to reason. Anthropic models that take
// an effort take it with adaptive thinking (output_config.effort); a model
// with both adaptive and budgets (Claude 4.6) is adaptive with Budget set.
func style(provider string, opts []reasoningOption) (kind string, efforts []string, budget bool) {
	kind = catalog.ReasoningFixed
	for _, o := range opts {
		switch o.Type {
		case "budget_tokens":
			budget = true
			if kind == catalog.ReasoningFixed || kind == catalog.ReasoningToggle {
				kind = catalog.ReasoningBudget
			}
		case "effort":
			kind = catalog.ReasoningEffort
			if provider == "anthropic" {
				kind = catalog.ReasoningAdaptive
			}
			for _, v := range o.Values {
				if v != nil && *v != "default" {
					efforts = append(efforts, *v)
				}
			}
		case "toggle":
			if kind == catalog.ReasoningFixed {
				kind = catalog.ReasoningToggle
			}
		}
	}
	return kind, efforts, budget
}

// passBack reads models.dev's "interleaved": the field the model's
// reasoning must come back in, or "required" (true: whatever came).
func passBack(raw json.RawMessage) string {
	var field struct {
		Field string `json:"field"`
	}
	switch {
	case len(raw) == 0 || string(raw) == "null" || string(raw) == "false":
		return ""
	case string(raw) == "true":
		return "required"
	case json.Unmarshal(raw, &field) == nil && field.Field != "":
		return field.Field
	}
	return ""
}
