package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// Codex CLI runs the same two scenarios against the same fake server, over
// loopback only: a model provider of its own pointing at the server
// (Responses API), its workspace-write sandbox, no approvals, and its
// start-up network calls (update check, plugin catalog, analytics) off.
// Codex has no read tool, so its second call reads the file with sed.

// codexTool is Codex's shell tool for a model it has no metadata for.
const codexTool = "exec_command"

func codexScenarios() map[string]scenario {
	return map[string]scenario{
		"hi": {name: "hi", steps: []llmtest.Step{llmtest.Text(hiAnswer)},
			check: func(p proc, reqs []llmtest.Request) error { return expect(p, reqs, 1, hiAnswer) }},
		"tool3": {name: "tool3",
			steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call(codexTool, `{"cmd":"cat notes.txt"}`)),
				llmtest.Calls(llmtest.Call(codexTool, `{"cmd":"sed -n 1,200p notes.txt"}`)),
				llmtest.Text(tool3Answer),
			},
			check: func(p proc, reqs []llmtest.Request) error {
				if err := expect(p, reqs, 3, tool3Answer); err != nil {
					return err
				}
				for i, r := range reqs[1:] {
					res := r.ToolResults()
					if len(res) == 0 || !strings.Contains(res[len(res)-1].Text, notesMarker) {
						return fmt.Errorf("Codex's call %d did not return the file: %+v", i+1, res)
					}
				}
				return nil
			}},
	}
}

const codexConfig = `model = "m"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[features]
plugins = false

[analytics]
enabled = false

[model_providers.fake]
name = "fake"
base_url = %q
wire_api = "responses"
`

// runCodex runs one Codex scenario: prompt as coder's scenario gives it,
// a fresh workspace, HOME and CODEX_HOME.
func runCodex(codex string, sc scenario, prompt string) (runStats, error) {
	tmp, err := os.MkdirTemp("", "coder-bench-codex-")
	if err != nil {
		return runStats{}, err
	}
	defer os.RemoveAll(tmp)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	codexHome := filepath.Join(home, ".codex")
	for _, d := range []string{ws, codexHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return runStats{}, err
		}
	}
	if err := writeProject(ws); err != nil {
		return runStats{}, err
	}
	srv, err := llmtest.Start(llmtest.Scenario{Steps: sc.steps})
	if err != nil {
		return runStats{}, err
	}
	defer srv.Close()
	cfg := fmt.Sprintf(codexConfig, srv.URL()+"/v1")
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o644); err != nil {
		return runStats{}, err
	}
	env := append(coderEnv(home, srv.URL()+"/v1"), "CODEX_HOME="+codexHome)
	p, err := runProc(codex, []string{"exec", "--skip-git-repo-check", prompt}, ws, env)
	if err != nil {
		return runStats{}, err
	}
	reqs := srv.Requests()
	if err := sc.check(p, reqs); err != nil {
		return runStats{}, fmt.Errorf("codex %s: %w", sc.name, err)
	}
	return runStats{wall: p.wall, cpu: p.cpu, rssBytes: p.maxRSSBytes, requests: len(reqs)}, nil
}

// codexMetrics runs hi and tool3 through coder and Codex, paired.
func codexMetrics(bin, codex string, n int) ([]Metric, error) {
	prompts := map[string]string{"hi": "hi", "tool3": "show me notes.txt"}
	cs := codexScenarios()
	var out []Metric
	for _, sc := range scenarios() {
		csc, ok := cs[sc.name]
		if !ok {
			continue
		}
		progress("codex: %s, %d pairs", sc.name, n+1)
		as, bs, err := pairedRuns(n, func() (runStats, error) { return runScenario(bin, sc) },
			func() (runStats, error) { return runCodex(codex, csc, prompts[sc.name]) })
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sc.name, err)
		}
		p := sc.name
		out = append(out,
			runMetric(p+".vs_codex", p+": wall time / Codex CLI's (workspace-write sandbox), pair by pair", "×",
				pairRatios(as, bs), &Goal{"<=", 0.125}, false),
			runMetric(p+".vs_codex_cpu", p+": CPU time / Codex CLI's, pair by pair", "×", cpuRatios(as, bs), nil, true),
			runMetric(p+".codex_wall", p+": Codex CLI's wall time", "s", walls(bs, 1), nil, true),
			runMetric(p+".codex_rss", p+": Codex CLI's max RSS", "MB", rsses(bs), nil, true),
			runMetric(p+".paired_rss", p+": coder's max RSS (paired runs)", "MB", rsses(as), nil, true))
	}
	return out, nil
}
