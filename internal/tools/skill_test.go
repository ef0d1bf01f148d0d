package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/skills"
)

func TestSkillTool(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".coder/skills/pdf/SKILL.md":        "---\nname: pdf\ndescription: Fill PDF forms\n---\n# PDF\n\nRun scripts/fill.py.\n",
		".coder/skills/pdf/scripts/fill.py": "print(1)\n",
		".coder/skills/review/SKILL.md":     "---\nname: review\ndescription: Review code\n---\nLook for bugs.\n",
	})
	list, errs := skills.Discover([]string{".coder/skills"}, ws, "")
	if len(errs) != 0 || len(list) != 2 {
		t.Fatalf("Discover = %v, %v", list, errs)
	}
	tool := NewSkillTool(func() []skills.Skill { return list })
	if !readOnly(tool.Facts().Kind) || tool.Name() != "skill" {
		t.Errorf("name %q, kind %v", tool.Name(), tool.Facts().Kind)
	}
	call := func(args string) Result {
		res, err := execRaw(context.Background(), tool, args)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := call(`{"name":"pdf"}`)
	want := "# Skill: pdf\n\n# PDF\n\nRun scripts/fill.py.\n\nSkill directory: " + filepath.Join(ws, ".coder/skills/pdf")
	if !res.OK || !strings.HasPrefix(res.Content, want) || !strings.HasSuffix(res.Content, "- scripts/fill.py\n") {
		t.Errorf("pdf = %q", res.Content)
	}
	res = call(`{"name":"nope"}`)
	if res.OK || !strings.Contains(res.Content, `unknown skill \"nope\"; available: pdf, review`) {
		t.Errorf("unknown = %+v", res)
	}
	if res := call(`{}`); res.OK {
		t.Errorf("missing name = %+v", res)
	}
	if err := os.Remove(list[1].Path); err != nil {
		t.Fatal(err)
	}
	if res := call(`{"name":"review"}`); res.OK || !strings.Contains(res.Content, "cannot load skill") {
		t.Errorf("deleted skill = %+v", res)
	}
	empty := NewSkillTool(func() []skills.Skill { return nil })
	if res, _ := execRaw(context.Background(), empty, `{"name":"x"}`); res.OK || !strings.Contains(res.Content, "no skills are installed") {
		t.Errorf("no skills = %+v", res)
	}
}
