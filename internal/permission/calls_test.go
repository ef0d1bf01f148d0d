package permission

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/tools"
)

// probeWS is the workspace the probes' calls are decoded in.
var probeWS *tools.Workspace

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "permission-test-")
	if err == nil {
		probeWS, err = tools.NewWorkspace(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// stateTool stands for one of the orchestrator's own tools (todos,
// questions, plan exit, subagents), which this package cannot build: only
// its name and facts matter to a policy.
type stateTool struct {
	tools.Tool
	name  string
	facts tools.Facts
}

func (s stateTool) Name() string       { return s.name }
func (s stateTool) Facts() tools.Facts { return s.facts }

// allTools are the tools a policy is told of, as the orchestrator tells
// it: the built-in ones with their facts, and stand-ins for the
// orchestrator's.
func allTools() []tools.Tool {
	fetch, err := tools.NewFetchTool(tools.FetchOptions{})
	if err != nil {
		panic(err)
	}
	own := tools.Facts{Effect: tools.EffectNone}
	return append(tools.Builtins(tools.Env{Workspace: probeWS}), fetch,
		stateTool{name: tools.Task, facts: tools.Facts{Effect: tools.EffectDelegate}},
		stateTool{name: tools.TodoRead, facts: own}, stateTool{name: tools.TodoWrite, facts: own},
		stateTool{name: tools.Question, facts: own}, tools.NewSkillTool(nil),
		stateTool{name: tools.ExitPlanMode, facts: own})
}

// newPolicy builds an engine told of allTools, as the orchestrator does.
func newPolicy(opts PolicyOptions) (*Engine, error) {
	e, err := NewPolicy(opts)
	if err == nil {
		e.UseTools(allTools())
	}
	return e, err
}

// probe is a decoded call and the mode it is made in.
type probe struct {
	c    *tools.Call
	mode agent.Mode
}

func (p probe) String() string { return fmt.Sprintf("%s %s (%s)", p.c.Name, p.c.Raw, p.mode) }

func decide(e *Engine, p probe) Decision { return e.Decide(p.c, p.mode) }

// decode decodes a call with the real built-in tools, as the orchestrator does.
func decode(ws *tools.Workspace, tool string, args any) *tools.Call {
	raw, _ := json.Marshal(args)
	fetch, err := tools.NewFetchTool(tools.FetchOptions{})
	if err != nil {
		panic(err)
	}
	reg, err := tools.NewRegistry(append(tools.Builtins(tools.Env{Workspace: ws}), fetch)...)
	if err != nil {
		panic(err)
	}
	return reg.Decode(chat.ToolCall{ID: "c1", Name: tool, Arguments: string(raw)})
}

func modeOf(m agent.Mode) agent.Mode {
	if m == "" {
		return agent.Build
	}
	return m
}

func fileCall(tool, path string, m agent.Mode) probe {
	args := map[string]string{"path": path, "content": "x", "old_string": "a", "new_string": "b"}
	return probe{decode(probeWS, tool, args), modeOf(m)}
}

func bashCall(command string, m agent.Mode) probe {
	return probe{decode(probeWS, tools.Bash, map[string]string{"command": command}), modeOf(m)}
}

// otherCall is a call of a tool that is not built in (an MCP tool).
func otherCall(name, subject string, readOnly bool) probe {
	return probe{&tools.Call{Name: name, Subject: subject, ReadOnly: readOnly}, agent.Build}
}
