package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/hooks"
)

// Hooks are commands run at points of a session, in Claude Code's shape:
// event name → matcher groups. Unlike other maps they add up across files:
// the user's hooks and a trusted project's all run.
type Hooks map[string][]HookGroup

// HookGroup is one matcher entry: the commands that run when Matcher (a
// regular expression over tool names; empty or "*" for all) matches.
type HookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []HookCommand `json:"hooks"`
	// Source is the file the group came from (for /hooks); set by Load.
	Source string `json:"-"`
}

// HookCommand is one hook. Type is "command" (Claude Code's other types
// are not run); Timeout is in seconds, DefaultHookTimeout when 0.
type HookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// DefaultHookTimeout is a hook's time limit in seconds when it sets none
// (Claude Code's default).
const DefaultHookTimeout = 60

// addHooks appends a file's hooks (decoded into l.Config.Hooks over an
// emptied map) to those of the earlier layers, naming the file.
func (l *Loaded) addHooks(prev Hooks, path string) {
	added := l.Config.Hooks
	l.Config.Hooks = prev
	for ev, groups := range added {
		for _, g := range groups {
			g.Source = path
			for i := range g.Hooks {
				if g.Hooks[i].Timeout == 0 {
					g.Hooks[i].Timeout = DefaultHookTimeout
				}
			}
			if l.Config.Hooks == nil {
				l.Config.Hooks = Hooks{}
			}
			l.Config.Hooks[ev] = append(l.Config.Hooks[ev], g)
		}
	}
}

// claudeSettings is the part of a Claude Code settings file coder reads.
type claudeSettings struct {
	Hooks Hooks `json:"hooks"`
}

// mergeClaudeHooks adds the hooks of a project's .claude/settings.json or
// .claude/settings.local.json, so a project set up for Claude Code runs its
// hooks here too. It is another tool's file: unknown keys, events coder
// does not have and hook types other than "command" are skipped. Its hooks
// start programs, so they apply only in a trusted workspace.
func (l *Loaded) mergeClaudeHooks(path string) error {
	f, data, found, err := readForeign[claudeSettings](path)
	if !found {
		return err
	}
	trusted := l.judge(path, data)
	kept := Hooks{}
	for ev, groups := range f.Hooks {
		if !hooks.Known(ev) {
			continue
		}
		for _, g := range groups {
			cmds := g.Hooks[:0:0]
			for _, h := range g.Hooks {
				if h.Type == "command" && strings.TrimSpace(h.Command) != "" {
					cmds = append(cmds, h)
				}
			}
			if len(cmds) > 0 {
				g.Hooks = cmds
				kept[ev] = append(kept[ev], g)
			}
		}
	}
	if len(kept) == 0 {
		return nil
	}
	if !trusted {
		l.ignore(path, filepath.Join(".claude", filepath.Base(path))+" hooks")
		return nil
	}
	prev := l.Config.Hooks
	l.Config.Hooks = kept
	l.addHooks(prev, path)
	l.Files = append(l.Files, path)
	return nil
}

// validateHooks checks coder's own hook settings: known events, command
// hooks with a command, a non-negative timeout, matchers that compile.
func validateHooks(ps *problems, h Hooks) {
	for _, ev := range slices.Sorted(maps.Keys(h)) {
		groups := h[ev]
		if !hooks.Known(ev) {
			ps.add("hooks."+ev, "unknown hook event %q (use %s)", ev, eventList())
			continue
		}
		for i, g := range groups {
			key := fmt.Sprintf("hooks.%s[%d]", ev, i)
			if err := hooks.CheckMatcher(g.Matcher); err != nil {
				ps.add(key+".matcher", "%v", err)
			}
			for j, c := range g.Hooks {
				k := fmt.Sprintf("%s.hooks[%d]", key, j)
				ps.oneOf(k+".type", c.Type, []string{"command"})
				if strings.TrimSpace(c.Command) == "" {
					ps.add(k+".command", "must be a shell command")
				}
				ps.atLeast(k+".timeout", c.Timeout, 0)
			}
		}
	}
}

func eventList() string {
	names := make([]string, len(hooks.Events))
	for i, e := range hooks.Events {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}
