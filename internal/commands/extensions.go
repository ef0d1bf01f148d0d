package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/orchestrator"
)

// compact forces a compaction and echoes the summary.
func compact(ctx context.Context, o *orchestrator.Orchestrator, _ string) (string, error) {
	before := o.ContextTokens()
	summary, err := o.Compact(ctx)
	if errors.Is(err, contextmgr.ErrNothingToCompact) {
		return "nothing to compact yet", nil
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("compacted: %d → %d tokens\n%s", before, o.ContextTokens(), strings.TrimSpace(summary)), nil
}

// listSkills shows the discovered skills and any that could not be read.
func (s *Set) listSkills(context.Context, *orchestrator.Orchestrator, string) (string, error) {
	if len(s.Skills) == 0 && len(s.SkillErrors) == 0 {
		return "no skills (add directories with a SKILL.md under .coder/skills or ~/.config/coder/skills)", nil
	}
	var b strings.Builder
	for _, sk := range s.Skills {
		fmt.Fprintf(&b, "  %-20s %s\n      %s\n", sk.Name, sk.Description, sk.Path)
	}
	for _, err := range s.SkillErrors {
		b.WriteString("  skipped: " + err.Error() + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// custom finds a .coder/commands/<name>.md command; it runs as a normal
// turn with $ARGUMENTS replaced.
func (s *Set) custom(name, args string) (*orchestrator.TurnInput, bool) {
	for _, c := range s.Custom {
		if c.Name == name {
			return &orchestrator.TurnInput{Input: c.Expand(args)}, true
		}
	}
	return nil, false
}
