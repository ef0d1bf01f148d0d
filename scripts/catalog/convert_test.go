package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// apiFixture is api.json's shape with one model per rule.
const apiFixture = `{
 "anthropic": {"name": "Anthropic", "models": {
  "claude-3-haiku-20240307": {"reasoning": false, "limit": {"context": 200000, "output": 4096},
    "cost": {"input": 0.25, "output": 1.25, "cache_read": 0.03, "cache_write": 0.3}, "modalities": {"output": ["text"]}},
  "claude-opus-4-7": {"reasoning": true, "reasoning_options": [{"type": "effort", "values": ["low", "high", "max", "default"]}],
    "limit": {"context": 1000000, "output": 128000}, "modalities": {"output": ["text"]}},
  "claude-opus-4-6": {"reasoning": true, "reasoning_options": [{"type": "effort", "values": ["low", "max"]}, {"type": "budget_tokens", "min": 1024}],
    "limit": {"context": 1000000, "output": 128000}, "modalities": {"output": ["text"]}},
  "claude-sonnet-4-5": {"reasoning": true, "reasoning_options": [{"type": "budget_tokens", "min": 1024}],
    "limit": {"context": 200000, "output": 64000}, "modalities": {"output": ["text"]}}}},
 "openai": {"name": "OpenAI", "models": {
  "gpt-5": {"reasoning": true, "reasoning_options": [{"type": "effort", "values": ["minimal", "high", null]}],
    "limit": {"context": 400000, "input": 272000, "output": 128000}, "modalities": {"output": ["text"]}},
  "gpt-4.1": {"reasoning": false, "limit": {"context": 1047576, "output": 32768}, "modalities": {"output": ["text"]}},
  "gpt-image-1": {"reasoning": false, "limit": {"context": 0, "output": 0}, "modalities": {"output": ["image"]}}}},
 "deepseek": {"name": "DeepSeek", "api": "https://api.deepseek.com", "models": {
  "deepseek-reasoner": {"reasoning": true, "reasoning_options": [], "interleaved": {"field": "reasoning_content"},
    "limit": {"context": 1000000, "output": 384000}, "modalities": {"output": ["text"]}}}},
 "openrouter": {"name": "OpenRouter", "models": {
  "moonshotai/kimi-k2.5": {"reasoning": true, "reasoning_options": [{"type": "toggle"}], "interleaved": true,
    "limit": {"context": 256000, "output": 256000}, "modalities": {"output": ["text"]}}}},
 "groq": {"name": "Groq", "models": {}}
}`

func TestConvertAppliesTheRules(t *testing.T) {
	saved := providers
	providers = []string{"anthropic", "openai", "deepseek", "openrouter", "groq"}
	defer func() { providers = saved }()
	var api map[string]apiProvider
	if err := json.Unmarshal([]byte(apiFixture), &api); err != nil {
		t.Fatal(err)
	}
	lines, err := convert(api)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range lines {
		k, v, _ := strings.Cut(l, " {")
		got[k] = "{" + v
	}
	want := map[string]string{
		"@groq":                             `{"name":"Groq"}`,
		"@deepseek":                         `{"name":"DeepSeek","api":"https://api.deepseek.com"}`,
		"anthropic claude-3-haiku-20240307": `{"context":200000,"output":4096,"reasoning":"none","cost":{"input":0.25,"output":1.25,"cache_read":0.03,"cache_write":0.3}}`,
		"anthropic claude-opus-4-7":         `{"context":1000000,"output":128000,"reasoning":"adaptive","efforts":["low","high","max"],"cost":{"input":0,"output":0}}`,
		"anthropic claude-opus-4-6":         `{"context":1000000,"output":128000,"reasoning":"adaptive","efforts":["low","max"],"budget":true,"cost":{"input":0,"output":0}}`,
		"anthropic claude-sonnet-4-5":       `{"context":200000,"output":64000,"reasoning":"budget","budget":true,"cost":{"input":0,"output":0}}`,
		"openai gpt-5":                      `{"context":400000,"input":272000,"output":128000,"tokens":"max_completion_tokens","reasoning":"effort","efforts":["minimal","high"],"responses":true,"cost":{"input":0,"output":0}}`,
		"openai gpt-4.1":                    `{"context":1047576,"output":32768,"tokens":"max_completion_tokens","reasoning":"none","cost":{"input":0,"output":0}}`,
		"deepseek deepseek-reasoner":        `{"context":1000000,"output":384000,"reasoning":"fixed","passback":"reasoning_content","cost":{"input":0,"output":0}}`,
		"openrouter moonshotai/kimi-k2.5":   `{"context":256000,"output":256000,"reasoning":"toggle","passback":"required","cost":{"input":0,"output":0}}`,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s:\n got %s\nwant %s", k, got[k], w)
		}
	}
	if _, ok := got["openai gpt-image-1"]; ok {
		t.Error("an image model was kept")
	}
	for i := 1; i < len(lines); i++ {
		if lines[i][0] != '@' && lines[i-1][0] != '@' && lines[i] < lines[i-1] {
			t.Fatalf("model lines not sorted at %q", lines[i])
		}
	}
}

func TestConvertNeedsEveryProvider(t *testing.T) {
	if _, err := convert(map[string]apiProvider{}); err == nil || !strings.Contains(err.Error(), "anthropic") {
		t.Fatalf("err = %v", err)
	}
}
