package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/hooks"
)

// listHooks is /hooks: each active hook by event, its matcher, timeout,
// whether it runs in the sandbox (it runs as the person's own program
// otherwise) and the file it came from. Hooks of an untrusted project are not active and
// so not listed (the start-up notice names them).
func (x *Dispatcher) listHooks(context.Context, string) (string, error) {
	if len(x.deps.Hooks) == 0 {
		return "no hooks are active (configure them under \"hooks\" in ~/.config/coder/config.json, " +
			"or in a trusted project's .coder/config.json or .claude/settings.json)", nil
	}
	var b strings.Builder
	for _, ev := range hooks.Events {
		first := true
		for _, g := range x.deps.Hooks {
			if g.Event != ev {
				continue
			}
			if first {
				fmt.Fprintf(&b, "%s\n", ev)
				first = false
			}
			matcher := g.Matcher
			if matcher == "" {
				matcher = "*"
			}
			for _, c := range g.Commands {
				where := ""
				if c.Sandbox {
					where = "in the sandbox; "
				}
				fmt.Fprintf(&b, "  [%s] %s  (timeout %s; %s%s)\n", matcher, c.Command, c.Timeout, where, g.Source)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
