package orchestrator

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/permission"
)

// A custom agent's permission preset is in force while the agent is active,
// however it became active (at start, switched, requested by an editor) and
// in the subagents it starts; switching back gives the session's preset
// back. The session's preset is balanced: writes run, rm asks (and an
// unattended ask is a no).
func TestAgentPresetFollowsTheActiveAgent(t *testing.T) {
	careful := agent.BuildAgent()
	careful.Name, careful.Preset = "careful", permission.PresetStrict
	free := agent.BuildAgent()
	free.Name, free.Preset = "free", permission.PresetYolo
	write := llmtest.Call("write", `{"path":"new.txt","content":"x\n"}`)
	rm := llmtest.Call("bash", `{"command":"rm old.txt"}`)
	type setup func(o *Orchestrator, p *permission.Engine)
	switchTo := func(as ...agent.Agent) setup {
		return func(o *Orchestrator, _ *permission.Engine) {
			for _, a := range as {
				o.SetAgent(a)
			}
		}
	}
	tests := []struct {
		name     string
		start    agent.Agent // "" is build
		setup    setup
		call     llmtest.ToolCall
		subagent bool
		ran      bool
	}{
		{name: "session preset writes", call: write, ran: true},
		{name: "strict agent at start", start: careful, call: write},
		{name: "switched to strict agent", setup: switchTo(careful), call: write},
		{name: "requested strict agent", setup: func(o *Orchestrator, _ *permission.Engine) { o.RequestAgent(careful) }, call: write},
		{name: "switched back to build", setup: switchTo(careful, agent.BuildAgent()), call: write, ran: true},
		{name: "explicit /permissions wins", setup: func(o *Orchestrator, p *permission.Engine) {
			o.SetAgent(careful)
			if _, err := p.SetPreset(permission.PresetBalanced); err != nil {
				t.Fatal(err)
			}
		}, call: write, ran: true},
		{name: "subagent of build writes", call: write, subagent: true, ran: true},
		{name: "subagent of strict agent", setup: switchTo(careful), call: write, subagent: true},
		{name: "session preset asks rm", call: rm},
		{name: "yolo agent runs rm", setup: switchTo(free), call: rm, ran: true},
		{name: "yolo agent then plan", setup: switchTo(free, agent.PlanAgent()), call: rm},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := []llmtest.Step{llmtest.Calls(tt.call), llmtest.Text("done")}
			if tt.subagent {
				steps = []llmtest.Step{
					llmtest.Calls(llmtest.Call("task", `{"agent":"general","prompt":"do it"}`)),
					llmtest.Calls(tt.call), llmtest.Text("sub done"), llmtest.Text("done")}
			}
			policy, err := permission.NewPolicy(permission.PolicyOptions{Permission: config.Permission{Preset: "balanced"}})
			if err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, llmtest.Scenario{Steps: steps}, nil, subCaps, func(o *Options) {
				o.Policy, o.Agent = policy, tt.start
			})
			h.write("old.txt", "old\n")
			if tt.setup != nil {
				tt.setup(h.orch, policy)
			}
			if _, err := h.run("go"); err != nil {
				t.Fatal(err)
			}
			_, errNew := os.Stat(filepath.Join(h.dir, "new.txt"))
			_, errOld := os.Stat(filepath.Join(h.dir, "old.txt"))
			ran := errNew == nil
			if tt.call.Name == "bash" {
				ran = os.IsNotExist(errOld)
			}
			if ran != tt.ran {
				t.Errorf("the call ran: %v, want %v (preset in force: %s)", ran, tt.ran, policy.Preset())
			}
		})
	}
}
