// Package config loads coder's configuration: built-in defaults, then the user
// file, the project file, environment variables and flags, later winning.
// It is the single home of every default; no other package keeps a copy.
package config

// Config is the whole configuration. Keys are snake_case as in the files.
type Config struct {
	Provider   Provider   `json:"provider"`
	Runtime    Runtime    `json:"runtime"`
	Safety     Safety     `json:"safety"`
	Compaction Compaction `json:"compaction"`
	Workflow   Workflow   `json:"workflow"`
	Permission Permission `json:"permission"`
	Approval   Approval   `json:"approval"`
	Agents     Agents     `json:"agents"`
	MCP        MCP        `json:"mcp"`
	Skills     Skills     `json:"skills"`
	Storage    Storage    `json:"storage"`
	UI         UI         `json:"ui"`
	Sandbox    Sandbox    `json:"sandbox"`
	Fetch      Fetch      `json:"fetch"`
	Telemetry  Telemetry  `json:"telemetry"`
	Hooks      Hooks      `json:"hooks,omitempty"`
	LSP        LSP        `json:"lsp"`
	Budget     Budget     `json:"budget"`
	// Notifications says how a person away from the terminal is told a
	// turn ended or an answer waits: "auto" (what the terminal supports),
	// "osc" (a desktop notification: OSC 9, or OSC 777 where that is the
	// terminal's), "bell", or "off". Only sent while the terminal is not
	// focused.
	Notifications string `json:"notifications"`
	// TrustedWorkspaces are the directories whose project settings may widen
	// what coder does (see trust.go); only the user config's list counts.
	TrustedWorkspaces []string `json:"trusted_workspaces,omitempty"`
}

// Budget bounds what a run may spend on model calls.
type Budget struct {
	// USD is the most a run (one process: a -p run, a REPL session) may
	// spend, priced from the model catalog; 0 means no bound. A call whose
	// estimated cost would pass it is not made (--max-budget-usd).
	USD float64 `json:"usd"`
}

// Telemetry is the opt-in OpenTelemetry export (metrics and traces over
// OTLP/HTTP, configured by the standard OTEL_* variables). Off, nothing is
// sent and no exporter is built.
type Telemetry struct {
	Enabled bool `json:"enabled"`
	// LogContent adds what was said and done to the traces: prompts,
	// answers, tool arguments and output. Off, only names, counts and
	// timings leave the machine.
	LogContent bool `json:"log_content"`
}

// Fetch says what the fetch tool may reach beyond the public internet.
type Fetch struct {
	// AllowHosts are hosts, host:port pairs or CIDRs fetch may reach even
	// though they are loopback, private, link-local or metadata addresses.
	AllowHosts []string `json:"allow_hosts,omitempty"`
}

// Provider says which model endpoint to use.
type Provider struct {
	// Type is a wire protocol of the provider table (catalog.Wires:
	// "openai", "openai-responses", "anthropic"). Left
	// unset for api.openai.com, the Responses API is chosen by itself for
	// the models the catalog marks Responses-first; "openai" set is Chat
	// Completions, as asked.
	Type    string `json:"type,omitempty"`
	BaseURL string `json:"base_url,omitempty"`
	// APIKey is the key itself; prefer APIKeyEnv, the name of a variable holding it.
	APIKey    string `json:"api_key,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
	Model     string `json:"model,omitempty"`
	TimeoutMS int    `json:"timeout_ms,omitempty"`
	// CallTimeoutMS bounds one whole model request, however steadily it
	// streams; 0 means no bound. Running out fails the call, unretried.
	CallTimeoutMS *int              `json:"call_timeout_ms,omitempty"`
	MaxRetries    *int              `json:"max_retries,omitempty"`
	MaxTokens     int               `json:"max_tokens,omitempty"`
	Headers       map[string]string `json:"headers,omitempty"`
	Reasoning     Reasoning         `json:"reasoning,omitempty"`
	// Profile selects one of Profiles; its fields fill what this section leaves empty.
	Profile  string              `json:"profile,omitempty"`
	Profiles map[string]Provider `json:"profiles,omitempty"`
	// SavedModels are the models /model chose, by the endpoint (base URL)
	// they were chosen for: used when that endpoint is in use and no layer
	// sets a model, so switching providers keeps each one's choice.
	SavedModels map[string]string `json:"saved_models,omitempty"`
	// Images says whether the model accepts images, for one the model
	// catalog does not know (a local vision model) or knows wrong; unset,
	// the catalog decides.
	Images *bool `json:"images,omitempty"`
}

// Reasoning options, passed to providers that support them.
type Reasoning struct {
	// Effort is "none", "minimal", "low", "medium", "high", "xhigh" or
	// "max": reasoning_effort (Chat Completions), reasoning.effort
	// (Responses), adaptive thinking's output_config.effort (Anthropic).
	// A level the model lacks is sent as its nearest lower one (catalog).
	Effort string `json:"effort,omitempty"`
	// BudgetTokens enables Anthropic extended thinking with this budget.
	BudgetTokens int `json:"budget_tokens,omitempty"`
}

type Runtime struct {
	WorkspaceRoot     string `json:"workspace_root,omitempty"`
	MaxSteps          int    `json:"max_steps"`
	ContextTokenLimit int    `json:"context_token_limit"`
	// MaxResponseBytes caps one model response (text, reasoning and tool
	// arguments): a provider that streams without end fails the call
	// instead of exhausting memory.
	MaxResponseBytes int `json:"max_response_bytes"`
}

type Safety struct {
	CommandTimeoutMS int `json:"command_timeout_ms"`
	OutputLimitBytes int `json:"output_limit_bytes"`
}

type Compaction struct {
	Auto           bool    `json:"auto"`
	Prune          bool    `json:"prune"`
	Threshold      float64 `json:"threshold"`
	RecentMessages int     `json:"recent_messages"`
}

type Workflow struct {
	RequireTodoForComplex bool     `json:"require_todo_for_complex"`
	AutoVerifyAfterEdit   bool     `json:"auto_verify_after_edit"`
	MaxVerifyAttempts     int      `json:"max_verify_attempts"`
	VerifyCommands        []string `json:"verify_commands"`
}

// Permission holds the policy: a default action, per-tool actions, bash
// sub-rules and the allowlist written by "always".
type Permission struct {
	Preset           string            `json:"preset,omitempty"`
	Default          string            `json:"default,omitempty"`
	Tools            map[string]string `json:"tools,omitempty"`
	Bash             []BashRule        `json:"bash,omitempty"`
	CommandAllowlist []string          `json:"command_allowlist,omitempty"`
}

// BashRule matches a command pattern (on the parsed argv) to an action.
type BashRule struct {
	Pattern string `json:"pattern"`
	Action  string `json:"action"`
}

type Approval struct {
	Interactive    bool `json:"interactive"`
	AutoApproveAsk bool `json:"auto_approve_ask"`
	// AllowDanger lets non-interactive runs approve danger requests.
	AllowDanger bool `json:"allow_danger,omitempty"`
}

type Agents struct {
	Default     string            `json:"default"`
	Definitions []AgentDefinition `json:"definitions,omitempty"`
	Subagents   Subagents         `json:"subagents"`
}

// Subagents caps the task tool so a fan-out cannot run away.
type Subagents struct {
	// MaxConcurrent subagents at once, and MaxPerTurn in one turn.
	MaxConcurrent int `json:"max_concurrent"`
	MaxPerTurn    int `json:"max_per_turn"`
	// TokenBudget is each subagent's limit on tokens (prompt + output,
	// summed over its model calls).
	TokenBudget int `json:"token_budget"`
	// MaxSteps is each subagent's limit on model calls.
	MaxSteps int `json:"max_steps"`
}

type AgentDefinition struct {
	Name             string   `json:"name"`
	Mode             string   `json:"mode,omitempty"`
	Tools            []string `json:"tools,omitempty"`
	PermissionPreset string   `json:"permission_preset,omitempty"`
	MaxSteps         int      `json:"max_steps,omitempty"`
	Prompt           string   `json:"prompt,omitempty"`
}

type MCP struct {
	Servers map[string]MCPServer `json:"servers,omitempty"`
}

// MCPServer is a stdio server (Command) or a streamable-HTTP one (URL).
type MCPServer struct {
	// Type is optional ("stdio", "http", "sse"): accepted so entries copied from a
	// Claude Code .mcp.json load unchanged; the transport follows Command/URL.
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

type Skills struct {
	Paths []string `json:"paths"`
}

type Storage struct {
	Dir        string `json:"dir"`
	SQLitePath string `json:"sqlite_path,omitempty"`
}

type UI struct {
	Timezone string `json:"timezone"`
	Color    string `json:"color"`
	// Markdown renders answers for the terminal (headings, emphasis, lists,
	// tables, code); false shows the model's text as it came.
	Markdown bool `json:"markdown"`
}

// Defaults returns the built-in configuration. This is the only place defaults live.
func Defaults() Config {
	return Config{
		Provider: Provider{
			// Bounds both the wait for the first output and any gap
			// without output (keep-alives are not output): a stalled
			// server fails the call (and is retried) instead of hanging.
			TimeoutMS: 120_000,
			// Bounds one model request end to end, so a server that
			// trickles forever cannot hold a turn; generous for long answers.
			CallTimeoutMS: intPtr(600_000),
			MaxRetries:    intPtr(4),
		},
		Runtime: Runtime{
			MaxSteps:          50,
			ContextTokenLimit: 128_000,
			MaxResponseBytes:  8 << 20,
		},
		Safety: Safety{
			CommandTimeoutMS: 120_000,
			OutputLimitBytes: 64 * 1024,
		},
		Compaction: Compaction{
			Auto:           true,
			Prune:          true,
			Threshold:      0.8,
			RecentMessages: 10,
		},
		Workflow: Workflow{
			RequireTodoForComplex: true,
			AutoVerifyAfterEdit:   true,
			MaxVerifyAttempts:     2,
		},
		Permission: Permission{Preset: "balanced"},
		Approval:   Approval{Interactive: true},
		Agents: Agents{Default: "build", Subagents: Subagents{
			MaxConcurrent: 2, MaxPerTurn: 4, TokenBudget: 200_000, MaxSteps: 20,
		}},
		Skills:  Skills{Paths: []string{".coder/skills", "~/.config/coder/skills"}},
		Storage: Storage{Dir: ".coder"},
		UI:      UI{Timezone: "Asia/Shanghai", Color: "auto", Markdown: true},
		Sandbox: defaultSandbox(),
		LSP:     defaultLSP(),
		// Told only while the terminal is not focused, in the way the
		// terminal supports.
		Notifications: "auto",
	}
}

func intPtr(v int) *int { return &v }
