package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/skills"
)

//go:embed description/skill.md
var skillDescription string

// skillTool loads a skill's instructions. The list is a function so that the
// tool sees skills discovered after it was built (a /skills reload).
type skillTool struct {
	list func() []skills.Skill
}

type skillArgs struct {
	Name string `json:"name"`
}

// NewSkillTool returns the skill tool over the skills list returns.
func NewSkillTool(list func() []skills.Skill) Tool {
	return skillTool{list: list}
}

func (skillTool) Name() string        { return Skill }
func (skillTool) Description() string { return skillDescription }
func (skillTool) Facts() Facts {
	return Facts{Kind: chat.ToolRead, Effect: EffectNone, Plan: true, General: true, Claude: []string{"Skill"}}
}
func (skillTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"name":{"type":"string","description":"The skill's name, as listed in the system prompt"}},` +
		`"required":["name"],"additionalProperties":false}`)
}

func (skillTool) Prepare(c *Call) error {
	a, err := decodeArgs[skillArgs](c)
	if err == nil {
		c.Subject = strings.TrimSpace(a.Name)
	}
	return err
}

func (t skillTool) Run(_ context.Context, c *Call) (Result, error) {
	a := c.Args.(*skillArgs)
	var all []skills.Skill
	if t.list != nil {
		all = t.list()
	}
	name := strings.TrimSpace(a.Name)
	for _, s := range all {
		if s.Name != name {
			continue
		}
		text, err := s.Load()
		if err != nil {
			return Failure("cannot load skill %q: %v", name, err), nil
		}
		content := fmt.Sprintf("# Skill: %s\n\n%s", s.Name, text)
		return Result{OK: true, Content: content, Summary: fmt.Sprintf("%d lines", strings.Count(text, "\n"))}, nil
	}
	if len(all) == 0 {
		return Failure("unknown skill %q: no skills are installed", name), nil
	}
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.Name
	}
	return Failure("unknown skill %q; available: %s", name, strings.Join(names, ", ")), nil
}
