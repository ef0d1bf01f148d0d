package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/customcmd"
)

// compact forces a compaction and echoes the summary; its arguments, as
// in Claude Code, tell the summary what to keep.
func (x *Dispatcher) compact(ctx context.Context, args string) (string, error) {
	c, err := x.core.Compact(ctx, strings.TrimSpace(args))
	if errors.Is(err, contextmgr.ErrNothingToCompact) {
		return x.nothingToCompact(), nil
	}
	if err != nil {
		return "", err
	}
	// The core's Compacted event has told the figures; this is the summary.
	return "summary of the compacted history:\n" + strings.TrimSpace(c.Summary), nil
}

// nothingToCompact says why a compaction found nothing to do: the latest
// messages are kept as they are, and the history holds no older ones.
func (x *Dispatcher) nothingToCompact() string {
	n := x.core.Status().Messages
	held := fmt.Sprintf("%d messages", n)
	if n == 1 {
		held = "1 message"
	}
	if k := x.deps.KeptMessages; k > 0 {
		return fmt.Sprintf("nothing to compact yet: the history holds %s, and compaction keeps the latest %d as they are (compaction.recent_messages) and summarises only older ones", held, k)
	}
	return "nothing to compact yet: the history holds " + held + ", all of them recent; compaction summarises only older ones"
}

// listSkills shows the discovered skills and any that could not be read.
func (x *Dispatcher) listSkills(context.Context, string) (string, error) {
	if len(x.deps.Skills) == 0 && len(x.deps.SkillErrors) == 0 {
		return "no skills (add directories with a SKILL.md under .coder/skills or ~/.config/coder/skills)", nil
	}
	var b strings.Builder
	for _, sk := range x.deps.Skills {
		fmt.Fprintf(&b, "  %-20s %s\n      %s\n", sk.Name, sk.Description, sk.Path)
	}
	for _, err := range x.deps.SkillErrors {
		b.WriteString("  skipped: " + err.Error() + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// customCommand finds a .coder/commands/<name>.md command; it runs as a
// normal turn with $ARGUMENTS replaced.
func (x *Dispatcher) customCommand(name string) (customcmd.Command, bool) {
	for _, c := range x.deps.Custom {
		if c.Name == name {
			return c, true
		}
	}
	return customcmd.Command{}, false
}
