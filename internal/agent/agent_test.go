package agent

import (
	"testing"

	"github.com/coder-agent/coder/internal/tools"
)

// builtinFacts are the facts the built-in tools declare, by name.
func builtinFacts(t *testing.T) map[string]tools.Facts {
	t.Helper()
	ws, err := tools.NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]tools.Facts{}
	for _, tl := range tools.Builtins(tools.Env{Workspace: ws}) {
		m[tl.Name()] = tl.Facts()
	}
	return m
}

func TestCustomAgentsBuildOnTheirMode(t *testing.T) {
	c, err := NewCatalog([]Definition{
		{Name: "reviewer", Mode: "plan", Prompt: "Review the diff."},
		{Name: "fixer", Tools: []string{"read", "edit", "bash"}, MaxSteps: 7},
	})
	if err != nil {
		t.Fatal(err)
	}
	facts := builtinFacts(t)
	// question is the orchestrator's: a tool of plan mode's own.
	facts["question"] = tools.Facts{Plan: true, PlanOnly: true}
	enabled := func(a Agent, name string) bool { return a.Enabled(name, facts[name]) }
	r, ok := c.Lookup("reviewer")
	if !ok || r.Prompt != "Review the diff." || enabled(r, "write") || !enabled(r, "question") {
		t.Fatalf("reviewer %+v", r)
	}
	f, _ := c.Lookup("fixer")
	if !enabled(f, "edit") || enabled(f, "write") || f.MaxSteps != 7 || f.Prompt != BuildAgent().Prompt {
		t.Fatalf("fixer %+v", f)
	}
	if r.Mode != Plan || f.Mode != Build {
		t.Fatalf("modes: reviewer %q, fixer %q", r.Mode, f.Mode)
	}
	if b, ok := c.Lookup("build"); !ok || b.Name != "build" {
		t.Fatal("built-in agents are still found")
	}
	for _, bad := range [][]Definition{{{Name: "plan"}}, {{Name: ""}}, {{Name: "x", Mode: "yolo"}}} {
		if _, err := NewCatalog(bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}
