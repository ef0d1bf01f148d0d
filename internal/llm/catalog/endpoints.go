package catalog

import (
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/weburl"
)

// This file is the provider table: the wire protocols coder speaks, and
// every endpoint it knows, by the preset (a vendor found by its key
// variable alone) or the API host that names it, with the rules a Chat
// Completions request to it follows beyond what every compatible server
// takes. Each rule names its evidence. Where a row says nothing, the
// model's catalog entry decides (its token parameter, the field its
// reasoning must come back in), and where that says nothing, the request
// is what any compatible server accepts. internal/config reads the wires
// and the presets (validation, resolution, help text); internal/app builds
// each wire's provider.

// Wire is a wire protocol: a value of provider.type.
type Wire struct {
	Name string
	// About says what the wire is, in the error that lists the types;
	// "" adds nothing.
	About string
	// Preset is the preset whose key variable and base URL an endpoint of
	// this wire takes when the configuration names neither.
	Preset string
	// Versioned: the provider appends a path without the API version
	// (/chat/completions), so a bare host gets /v1; otherwise it appends
	// the version itself (/v1/messages) and a trailing /v1 is dropped.
	Versioned bool
	// URLWord and KeyPrefix infer the wire when the configuration names no
	// type: a base URL containing URLWord, or no base URL and a key
	// starting with KeyPrefix. "" infers nothing; "openai" is the rest.
	URLWord, KeyPrefix string
}

// wires are the wire protocols, in the order errors list them.
var wires = []Wire{
	{Name: "openai", About: "any OpenAI-compatible Chat Completions API", Preset: "openai", Versioned: true},
	{Name: "openai-responses", About: "OpenAI's Responses API", Preset: "openai", Versioned: true},
	{Name: "anthropic", Preset: "anthropic", URLWord: "anthropic", KeyPrefix: "sk-ant-"},
}

// Wires lists the wire protocols.
func Wires() []Wire { return slices.Clone(wires) }

// WireNamed is the wire protocol called name.
func WireNamed(name string) (Wire, bool) {
	i := slices.IndexFunc(wires, func(w Wire) bool { return w.Name == name })
	if i < 0 {
		return Wire{}, false
	}
	return wires[i], true
}

// Preset is a well-known endpoint: its wire type, where its key and base
// URL come from, and a default model.
type Preset struct {
	Name    string
	Label   string // in the no-provider help, and in errors when the catalog has no name for it
	Wire    string // a Wire's Name
	KeyEnv  string // "" = no key needed
	BaseEnv string // variable overriding BaseURL, following the vendor SDK
	BaseURL string // its host is one of the endpoint's hosts
	Model   string // "" = must be configured or discovered
}

// Presets lists the presets in the table's order, which is the order of
// auto-detection when only API key variables are set.
func Presets() []Preset {
	var out []Preset
	for _, e := range endpoints {
		if e.preset != nil {
			out = append(out, *e.preset)
		}
	}
	return out
}

// PresetNamed is the preset called name.
func PresetNamed(name string) (Preset, bool) {
	for _, e := range endpoints {
		if e.preset != nil && e.preset.Name == name {
			return *e.preset, true
		}
	}
	return Preset{}, false
}

// Rules is what a Chat Completions request to one endpoint, for one
// model, carries; see RulesFor.
type Rules struct {
	// StreamOptions: stream_options.include_usage is sent (OpenAI and
	// most compatible servers report usage only when asked).
	StreamOptions bool
	// TokenParam is the output-limit parameter: MaxTokens or
	// MaxCompletionTokens.
	TokenParam string
	// PassBack lists the reasoning block kinds (chat.Reasoning*) an
	// assistant message carries back, each in the field it came in; nil
	// means every kind. Reasoning from another endpoint (a session that
	// switched models) is held to the same list.
	PassBack []string
	// Required is the field reasoning must come back in on tool-call
	// turns; a message stored before reasoning blocks existed sends its
	// text there. "" when none is required.
	Required string
}

// Allows reports whether an assistant message may carry reasoning of
// kind back.
func (r Rules) Allows(kind string) bool {
	return r.PassBack == nil || slices.Contains(r.PassBack, kind)
}

// rules is a row's part of Rules: zero values say nothing.
type rules struct {
	noStreamOptions bool
	tokenParam      string
	passBack        []string
	required        string
}

// passNone is a pass-back list that lets nothing back.
var passNone = []string{}

type endpoint struct {
	id     string   // the catalog provider; "" for none (a local server)
	preset *Preset  // nil: not configured by a key variable alone
	hosts  []string // API hosts that are this endpoint besides the preset's
	rules  rules
	// models refines the rules for some of the endpoint's models: the
	// first whose prefix the model id (less any "vendor/") starts with
	// replaces rules.
	models []modelRules
}

type modelRules struct {
	prefix string
	rules  rules
}

var endpoints = []endpoint{
	// The Messages API: its rules are internal/llm/anthropic's.
	{id: "anthropic", preset: &Preset{"anthropic", "Anthropic (Claude)", "anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "https://api.anthropic.com", "claude-sonnet-4-5"}},
	// max_tokens is deprecated there and its reasoning models answer it
	// with 400 "Unsupported parameter: 'max_tokens' is not supported with
	// this model. Use 'max_completion_tokens' instead."; the replacement
	// works for every OpenAI model, so one the catalog lacks gets it too.
	{id: "openai", preset: &Preset{"openai", "OpenAI", "openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", "https://api.openai.com/v1", "gpt-4.1"},
		rules: rules{tokenParam: MaxCompletionTokens}},
	// Thinking mode with tools wants each tool-call turn's
	// reasoning_content back: models.dev marks its reasoning models
	// interleaved in reasoning_content, and clients pad it where it is
	// missing for "DeepSeek thinking-mode providers" to avoid a 400
	// (NousResearch/hermes-agent#23407).
	{id: "deepseek", preset: &Preset{"deepseek", "DeepSeek", "openai", "DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL", "https://api.deepseek.com/v1", "deepseek-chat"},
		rules: rules{required: chat.ReasoningContentField}},
	// reasoning_details go back unmodified, encrypted entries included,
	// and the text is not repeated beside them (OpenRouter docs, "Reasoning
	// Tokens", preserving reasoning blocks): every kind goes back, and
	// openai's request encoding drops "reasoning" when details came.
	{id: "openrouter", preset: &Preset{"openrouter", "OpenRouter", "openai", "OPENROUTER_API_KEY", "", "https://openrouter.ai/api/v1", "anthropic/claude-sonnet-4.5"}},
	{id: "alibaba", hosts: []string{"dashscope-intl.aliyuncs.com"}},
	{id: "alibaba-cn", preset: &Preset{"dashscope", "Qwen (DashScope)", "openai", "DASHSCOPE_API_KEY", "", "https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus"}},
	// "thinking is enabled but reasoning_content is missing in assistant
	// tool call message at index 7" (HTTP 400, continuedev/continue#11527).
	{id: "moonshotai", hosts: []string{"api.moonshot.ai"},
		rules: rules{required: chat.ReasoningContentField}},
	{id: "moonshotai-cn", preset: &Preset{"moonshot", "Kimi (Moonshot)", "openai", "MOONSHOT_API_KEY", "", "https://api.moonshot.cn/v1", "kimi-k2-0905-preview"},
		rules: rules{required: chat.ReasoningContentField}},
	{id: "zhipuai", preset: &Preset{"zhipu", "GLM (Zhipu)", "openai", "ZHIPUAI_API_KEY", "", "https://open.bigmodel.cn/api/paas/v4", "glm-4.6"}},
	{id: "zai", hosts: []string{"api.z.ai"}},
	// Gemini's thought signatures ride in extra_content, on the message
	// and on each tool call, and must come back: "Function call is missing
	// a thought_signature in functionCall parts" (HTTP 400,
	// langroid/langroid#969). Every kind goes back.
	{id: "google", hosts: []string{"generativelanguage.googleapis.com"}},
	// Mistral validates requests strictly and answers 422 "Extra inputs
	// are not permitted" to stream_options (dnakov/anon-kode#53,
	// vybestack/llxprt-code#114: it reports usage unasked), to
	// max_completion_tokens (editor-code-assistant/eca#231,
	// Gitlawb/openclaude#739) and to an assistant's reasoning_content
	// (charmbracelet/crush#1590). Its own client sends none of them
	// (replay testdata/followups, pydantic-ai's recorded requests); it
	// takes its thinking parts back in content.
	{id: "mistral", hosts: []string{"api.mistral.ai"},
		rules: rules{noStreamOptions: true, tokenParam: MaxTokens, passBack: []string{chat.ReasoningThinkingPart}}},
	{id: "xai", hosts: []string{"api.x.ai"}},
	// Groq answers 400 "property 'reasoning' is unsupported" to reasoning
	// in assistant messages (janhq/jan#8136, karthink/gptel#774);
	// pydantic-ai's recorded Groq follow-ups carry it in content instead.
	{id: "groq", hosts: []string{"api.groq.com"}, rules: rules{passBack: passNone}},
	// Cerebras rejects reasoning_content (musistudio/llms#64 strips it for
	// Cerebras) and takes GLM and Qwen reasoning back only as <think> tags
	// in content (pydantic-ai's Cerebras profile, after the Cerebras docs),
	// which coder does not write: none goes back. gpt-oss takes its own
	// back in "reasoning" (recorded: pydantic-ai's
	// test_cerebras_thinking_part_survives_multiturn cassette, HTTP 200).
	{id: "cerebras", hosts: []string{"api.cerebras.ai"}, rules: rules{passBack: passNone},
		models: []modelRules{{"gpt-oss", rules{passBack: []string{chat.ReasoningField}}}}},
	{id: "vercel", hosts: []string{"ai-gateway.vercel.sh"}},
	// Ollama is never auto-detected from a key; config probes it last.
	// OLLAMA_HOST is a host, not a base URL (config's ollamaHost).
	{preset: &Preset{"ollama", "Ollama", "openai", "", "OLLAMA_HOST", "http://127.0.0.1:11434/v1", ""}},
}

// Endpoints lists the catalog providers of the endpoint table, in its
// order: the providers scripts/catalog takes from models.dev.
func Endpoints() []string {
	var out []string
	for _, e := range endpoints {
		if e.id != "" {
			out = append(out, e.id)
		}
	}
	return out
}

func endpointByID(id string) (endpoint, bool) {
	for _, e := range endpoints {
		if id != "" && e.id == id {
			return e, true
		}
	}
	return endpoint{}, false
}

// ProviderFor names the catalog provider of a configured endpoint: by the
// preset it matched, else by its host; "" when unknown.
func ProviderFor(preset, baseURL string) string {
	for _, e := range endpoints {
		if preset != "" && e.preset != nil && e.preset.Name == preset {
			return e.id
		}
	}
	u, err := weburl.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return ""
	}
	host := strings.ToLower(u.Hostname())
	for _, e := range endpoints {
		if e.id != "" && (slices.Contains(e.hosts, host) || e.preset != nil && presetHost(*e.preset) == host) {
			return e.id
		}
	}
	return ""
}

// presetHost is the host of p's base URL, lower-cased.
func presetHost(p Preset) string {
	u, err := weburl.Parse(p.BaseURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// RulesFor is the rules of a Chat Completions request for model on the
// catalog provider (ProviderFor's answer, "" for an endpoint coder does
// not know): the endpoint's row, and the model's catalog entry (an
// alias's is its target's) where the row says nothing.
func RulesFor(provider, model string) Rules {
	e, _ := endpointByID(provider)
	row := e.rules
	bare := strings.ToLower(model)
	if _, rest, ok := strings.Cut(bare, "/"); ok {
		bare = rest
	}
	for _, mr := range e.models {
		if strings.HasPrefix(bare, mr.prefix) {
			row = mr.rules
			break
		}
	}
	r := Rules{StreamOptions: !row.noStreamOptions, TokenParam: MaxTokens, PassBack: row.passBack, Required: row.required}
	m, known := Lookup(provider, model)
	switch {
	case row.tokenParam != "":
		r.TokenParam = row.tokenParam
	case known:
		r.TokenParam = m.TokenParam()
	}
	if r.Required == "" && known && m.PassBack == chat.ReasoningContentField {
		r.Required = m.PassBack
	}
	return r
}
