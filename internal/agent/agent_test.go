package agent

import "testing"

func TestCustomAgentsBuildOnTheirMode(t *testing.T) {
	c, err := NewCatalog([]Definition{
		{Name: "reviewer", Mode: "plan", Prompt: "Review the diff."},
		{Name: "fixer", Tools: []string{"read", "edit", "bash"}, MaxSteps: 7},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := c.Lookup("reviewer")
	if !ok || r.Prompt != "Review the diff." || r.Enabled("write") || !r.Enabled("question") {
		t.Fatalf("reviewer %+v", r)
	}
	f, _ := c.Lookup("fixer")
	if !f.Enabled("edit") || f.Enabled("write") || f.MaxSteps != 7 || f.Prompt != BuildAgent().Prompt {
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
