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
