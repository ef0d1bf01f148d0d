package orchestrator

import (
	"slices"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/tools"
)

// Every list of tools (plan and build mode's, the subagents', the
// presets', the hooks' Claude names) is derived from the facts each tool
// declares, so every tool registered the way coder registers them (the
// built-in ones, fetch, skill, and the orchestrator's own) must declare
// facts those derivations can use, and the derived sets must keep their
// promises: plan mode has every tool that changes nothing and none that
// changes the workspace; explorers only look; no subagent can start one.
func TestEveryRegisteredToolDeclaresItsFacts(t *testing.T) {
	h := withEveryTool(t)
	plan, build := agent.PlanAgent(), agent.BuildAgent()
	for _, tl := range h.orch.tools.Tools() {
		n, f := tl.Name(), tl.Facts()
		if f.Kind == "" || f.Effect == tools.EffectUndeclared {
			t.Errorf("%s declares no kind or no effect: %+v", n, f)
		}
		switch {
		case f.Effect == tools.EffectNone && !plan.Enabled(n, f):
			t.Errorf("%s changes nothing but plan mode does not have it", n)
		case f.Effect.Changes() && plan.Enabled(n, f):
			t.Errorf("%s changes the workspace but plan mode has it", n)
		case !plan.Enabled(n, f) && !build.Enabled(n, f):
			t.Errorf("%s is in no mode", n)
		}
		if subagentGets(exploreAgent, f) {
			if f.Effect != tools.EffectNone || !subagentGets(generalAgent, f) {
				t.Errorf("%s is an explorer's but changes things or is not a general subagent's: %+v", n, f)
			}
		}
		if (subagentGets(exploreAgent, f) || subagentGets(generalAgent, f)) && (f.Effect == tools.EffectDelegate || f.PlanOnly) {
			t.Errorf("a subagent gets %s, which starts subagents or plans: %+v", n, f)
		}
	}
}

// The sets derived from the facts are the ones the hand-written lists held
// before the facts replaced them: a fact flipped on one tool (bash out of
// plan mode, an editor given to explorers) changes a set and fails here.
func TestDerivedToolSetsArePinned(t *testing.T) {
	h := withEveryTool(t)
	plan, build := agent.PlanAgent(), agent.BuildAgent()
	sets := map[string][]string{}
	for _, tl := range h.orch.tools.Tools() {
		n, f := tl.Name(), tl.Facts()
		for set, in := range map[string]bool{
			"plan": plan.Enabled(n, f), "build": build.Enabled(n, f),
			"explore": subagentGets(exploreAgent, f), "general": subagentGets(generalAgent, f),
		} {
			if in {
				sets[set] = append(sets[set], n)
			}
		}
	}
	want := map[string]string{
		"plan":    "bash bash_kill bash_output exit_plan_mode fetch glob grep list question read skill todoread todowrite",
		"build":   "bash bash_kill bash_output edit fetch glob grep list patch read skill task todoread write",
		"explore": "glob grep list read",
		"general": "bash bash_kill bash_output edit fetch glob grep list patch read skill write",
	}
	for set, names := range want {
		slices.Sort(sets[set])
		if got := strings.Join(sets[set], " "); got != names {
			t.Errorf("%s mode's tools:\n got %s\nwant %s", set, got, names)
		}
	}
}

// withEveryTool is a harness whose registry holds every tool coder
// registers: the built-in ones, fetch, skill and the orchestrator's own
// (subagents on).
func withEveryTool(t *testing.T) *harness {
	t.Helper()
	fetch, err := tools.NewFetchTool(tools.FetchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, llmtest.Scenario{}, []tools.Tool{fetch, tools.NewSkillTool(nil)},
		func(o *Options) { o.Subagents = SubagentOptions{MaxConcurrent: 1, MaxPerTurn: 1} })
	return h
}
