package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// TestRequestShapedByCatalog checks each rule of shape (shape.go) against
// the catalog's data for real models.
func TestRequestShapedByCatalog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		cfg      Config
		max      int
		thinking string // JSON of "thinking", "" for none
		effort   string // output_config.effort, "" for none
	}{
		{"Claude 3 Haiku: default capped at its 4096", Config{Model: "claude-3-haiku-20240307"}, 4096, "", ""},
		{"an alias takes its snapshot's limit: claude-3-opus-latest is claude-3-opus-20240229's 4096", Config{Model: "claude-3-opus-latest"}, 4096, "", ""},
		{"an alias takes its snapshot's rules: claude-3-7-sonnet-latest thinks with a budget", Config{Model: "claude-3-7-sonnet-latest", Effort: "low"}, 32_000, `{"type":"enabled","budget_tokens":4096}`, ""},
		{"Claude 3 Haiku does not think: a budget is not sent", Config{Model: "claude-3-haiku-20240307", ThinkingBudget: 2048}, 4096, "", ""},
		{"Claude Sonnet 4.5 takes a budget", Config{Model: "claude-sonnet-4-5", ThinkingBudget: 10_000}, 32_000, `{"type":"enabled","budget_tokens":10000}`, ""},
		{"Claude Sonnet 4.5: an effort becomes a budget", Config{Model: "claude-sonnet-4-5", Effort: "high"}, 32_000, `{"type":"enabled","budget_tokens":20000}`, ""},
		{"Claude Sonnet 4.5: a budget past its 64k output shrinks", Config{Model: "claude-sonnet-4-5", ThinkingBudget: 64_000, MaxTokens: 64_000}, 64_000, `{"type":"enabled","budget_tokens":59904}`, ""},
		{"Claude Opus 4.7 takes only adaptive thinking: a budget turns it on", Config{Model: "claude-opus-4-7", ThinkingBudget: 10_000}, 32_000, `{"type":"adaptive"}`, ""},
		{"Claude Opus 4.7 with an effort", Config{Model: "claude-opus-4-7", Effort: "xhigh"}, 32_000, `{"type":"adaptive"}`, "xhigh"},
		{"Claude Opus 4.7: minimal is not its level, low is", Config{Model: "claude-opus-4-7", Effort: "minimal"}, 32_000, `{"type":"adaptive"}`, "low"},
		{"Claude Opus 4.6 takes both: an effort is adaptive", Config{Model: "claude-opus-4-6", Effort: "max"}, 32_000, `{"type":"adaptive"}`, "max"},
		{"Claude Opus 4.6 takes both: a budget is a budget", Config{Model: "claude-opus-4-6", ThinkingBudget: 4096}, 32_000, `{"type":"enabled","budget_tokens":4096}`, ""},
		{"effort none turns thinking off", Config{Model: "claude-opus-4-7", Effort: "none", ThinkingBudget: 4096}, 8192, "", ""},
		{"no thinking configured: 8192", Config{Model: "claude-opus-4-7"}, 8192, "", ""},
		{"an unknown model with a budget: enabled, max_tokens above it", Config{Model: "claude-next", ThinkingBudget: 40_000, MaxTokens: 1000}, 48_192, `{"type":"enabled","budget_tokens":40000}`, ""},
		{"an unknown model with an effort only: nothing it might reject", Config{Model: "claude-next", Effort: "high"}, 8192, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := serve(t, reply{body: messageStart(1, 0, 0) + messageEnd("end_turn", 1)})
			cfg := tt.cfg
			cfg.BaseURL, cfg.APIKey, cfg.Catalog = fs.url, testKey, "anthropic"
			if _, err := collect(t, New(cfg), llm.Request{RunID: "r", Messages: []chat.Message{{Role: chat.RoleUser, Content: "hi"}}}); err != nil {
				t.Fatal(err)
			}
			var body struct {
				MaxTokens    int             `json:"max_tokens"`
				Thinking     json.RawMessage `json:"thinking"`
				OutputConfig struct {
					Effort string `json:"effort"`
				} `json:"output_config"`
			}
			if err := json.Unmarshal([]byte(fs.requests()[0].body), &body); err != nil {
				t.Fatal(err)
			}
			if body.MaxTokens != tt.max || string(body.Thinking) != tt.thinking || body.OutputConfig.Effort != tt.effort {
				t.Fatalf("max_tokens %d thinking %s effort %q; want %d %s %q",
					body.MaxTokens, body.Thinking, body.OutputConfig.Effort, tt.max, tt.thinking, tt.effort)
			}
		})
	}
}
