//go:build e2e

package e2e

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// TestResultCostIsTheCatalogsPrices: total_cost_usd and modelUsage are the
// mock's reported usage priced from the catalog, on each wire; a model the
// catalog does not price has a null cost; /cost shows the session's
// figures after a restart.
func TestResultCostIsTheCatalogsPrices(t *testing.T) {
	for _, tc := range []struct{ protocol, catalogProvider, model string }{
		{"openai", "openai", "gpt-4.1"},
		{"anthropic", "anthropic", "claude-sonnet-4-5"},
		{"openai", "", "fake-model"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			usages := []chat.Usage{
				{InputTokens: 1200, OutputTokens: 300, CacheReadTokens: 800},
				{InputTokens: 2500, OutputTokens: 120, CacheReadTokens: 1500},
			}
			if tc.protocol == "anthropic" {
				usages[0].CacheWriteTokens = 64 // only Anthropic's wire carries it
			}
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				{ToolCalls: []llmtest.ToolCall{llmtest.Call("list", `{"path":"."}`)}, Usage: usages[0]},
				{Text: "Done.", Usage: usages[1]},
			}})
			env := providerEnv(t, srv, tc.protocol)
			env["CODER_MODEL"] = tc.model
			dir := t.TempDir()
			res := run{args: []string{"-p", "look around", "--output-format", "json"}, env: env, dir: dir}.exec(t)
			if res.code != 0 {
				t.Fatalf("exit %d\n%s", res.code, res.stderr)
			}
			out := resultObject(t, res)
			var total chat.Usage
			for _, u := range usages {
				total.Add(u)
			}
			want, priced := catalog.Price(tc.catalogProvider, tc.model, total)
			got, _ := out["total_cost_usd"].(float64)
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("total_cost_usd %v, want %v", got, want)
			}
			mu, _ := out["modelUsage"].(map[string]any)[tc.model].(map[string]any)
			if mu == nil || mu["inputTokens"] != float64(total.InputTokens) || mu["outputTokens"] != float64(total.OutputTokens) ||
				mu["cacheReadInputTokens"] != float64(total.CacheReadTokens) || mu["cacheCreationInputTokens"] != float64(total.CacheWriteTokens) {
				t.Fatalf("modelUsage %v", out["modelUsage"])
			}
			if priced != (mu["costUSD"] != nil) || (priced && math.Abs(mu["costUSD"].(float64)-want) > 1e-9) {
				t.Fatalf("costUSD %v, priced %v", mu["costUSD"], priced)
			}
			if priced && want <= 0 {
				t.Fatal("a priced model cost nothing: the test proves nothing")
			}
			// After a restart, /cost shows the session's calls and cost.
			res = run{args: []string{"--continue"}, env: env, dir: dir, stdin: "/cost\n"}.exec(t)
			line := ""
			for _, l := range strings.Split(res.stdout, "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), tc.model) {
					line = l
				}
			}
			wantCost := "unknown"
			if priced {
				wantCost = fmt.Sprintf("$%.4f", want)
			}
			if f := strings.Fields(line); len(f) != 7 || f[1] != "2" || f[2] != fmt.Sprint(total.InputTokens) || f[6] != wantCost {
				t.Fatalf("/cost row %q (want 2 calls, %d input, %s)\n%s", line, total.InputTokens, wantCost, res.stdout)
			}
		})
	}
}

// TestBudgetStopsBeforeTheCall: with a budget, the call that would take
// the run past it is not made — a distinct subtype and exit code say so;
// the config's budget.usd does the same, and a larger --max-budget-usd
// (the control) lets the run finish.
func TestBudgetStopsBeforeTheCall(t *testing.T) {
	scenario := func() llmtest.Scenario {
		return llmtest.Scenario{Steps: []llmtest.Step{
			// gpt-4.1: 100k input tokens is $0.20; the next call sends as
			// much again, so it would take the run to about $0.41.
			{ToolCalls: []llmtest.ToolCall{llmtest.Call("bash", `{"command":"echo ran >> log.txt"}`)},
				Usage: chat.Usage{InputTokens: 100_000, OutputTokens: 1000}},
			{Text: "Done.", Usage: chat.Usage{InputTokens: 101_000, OutputTokens: 10}},
		}}
	}
	for _, tc := range []struct {
		name, config string
		args         []string
		stopped      bool
	}{
		{"flag", "", []string{"--max-budget-usd", "0.30"}, true},
		{"config", `{"budget":{"usd":0.3}}`, nil, true},
		{"larger flag", `{"budget":{"usd":0.3}}`, []string{"--max-budget-usd", "1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, scenario())
			env := providerEnv(t, srv, "openai")
			env["CODER_MODEL"] = "gpt-4.1"
			dir := t.TempDir()
			if tc.config != "" {
				writeFile(t, dir, ".coder/config.json", tc.config)
			}
			args := append([]string{"-p", "append a line", "--output-format", "json"}, tc.args...)
			res := run{args: args, env: env, dir: dir}.exec(t)
			out := resultObject(t, res)
			n := len(srv.Requests())
			if !tc.stopped {
				if res.code != 0 || n != 2 || out["subtype"] != "success" {
					t.Fatalf("control: exit %d, %d requests, %v", res.code, n, out)
				}
				return
			}
			msg, _ := out["error"].(string)
			if res.code != 4 || out["subtype"] != "error_max_budget_usd" || out["is_error"] != true || n != 1 ||
				!strings.Contains(msg, "of its $0.30 budget") {
				t.Fatalf("exit %d, %d requests, result %v\nstderr %s", res.code, n, out, res.stderr)
			}
			if got, _ := out["total_cost_usd"].(float64); math.Abs(got-0.208) > 1e-9 {
				t.Fatalf("spent %v, want the first call's $0.208", got)
			}
			if readFile(t, dir, "log.txt") != "ran\n" {
				t.Fatal("the first call's tool did not run")
			}
		})
	}
}
