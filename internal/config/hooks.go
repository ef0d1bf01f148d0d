package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/hooks"
)

// Hooks are the person's hook settings and the hooks themselves, in one
// JSON object as Claude Code writes hooks: event name → matcher groups,
// with coder's two settings beside them ({"sandbox": true, "Stop": [...]}).
// Unlike other settings they add up across files: the user's hooks and a
// trusted project's all run, and either file may turn a setting on.
type Hooks struct {
	// Sandbox runs every hook in the sandbox of the model's commands
	// instead of as the person's own program (one hook: its "sandbox").
	Sandbox bool `json:"sandbox"`
	// ImportClaudeUser adds the hooks of the person's Claude Code user
	// settings (~/.claude/settings.json, or $CLAUDE_CONFIG_DIR's).
	ImportClaudeUser bool `json:"import_claude_user"`
	// Events are the hooks by event name.
	Events HookEvents `json:"-"`
}

// HookEvents are hooks by event name, Claude Code's "hooks" object.
type HookEvents map[string][]HookGroup

// UnmarshalJSON reads the settings and, under every other key, an event's
// groups (the checker has vetted the shape).
func (h *Hooks) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for k, v := range m {
		var err error
		switch k {
		case "sandbox":
			err = json.Unmarshal(v, &h.Sandbox)
		case "import_claude_user":
			err = json.Unmarshal(v, &h.ImportClaudeUser)
		default:
			var groups []HookGroup
			if err = json.Unmarshal(v, &groups); err == nil {
				if h.Events == nil {
					h.Events = HookEvents{}
				}
				h.Events[k] = groups
			}
		}
		if err != nil {
			return fmt.Errorf("hooks.%s: %w", k, err)
		}
	}
	return nil
}

// MarshalJSON writes the shape UnmarshalJSON reads.
func (h Hooks) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	for ev, groups := range h.Events {
		m[ev] = groups
	}
	if h.Sandbox {
		m["sandbox"] = true
	}
	if h.ImportClaudeUser {
		m["import_claude_user"] = true
	}
	return json.Marshal(m)
}

// inlineElem makes the checker read the keys that are no field as events.
func (Hooks) inlineElem() reflect.Type { return reflect.TypeFor[[]HookGroup]() }

// HookGroup is one matcher entry: the commands that run when Matcher (a
// regular expression over tool names; empty or "*" for all) matches.
type HookGroup struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []HookCommand `json:"hooks"`
	// Source is the file the group came from (for /hooks); set by Load.
	Source string `json:"-"`
}

// HookCommand is one hook. Type is "command" (Claude Code's other types
// are not run); Timeout is in seconds, DefaultHookTimeout when 0. Sandbox
// runs this one in the sandbox (see Hooks.Sandbox).
type HookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
	Sandbox bool   `json:"sandbox,omitempty"`
}

// DefaultHookTimeout is a hook's time limit in seconds when it sets none
// (Claude Code's default).
const DefaultHookTimeout = 60

// addHooks appends a file's hooks (decoded into l.Config.Hooks over an
// emptied value) to those of the earlier layers, naming the file.
func (l *Loaded) addHooks(prev Hooks, path string) {
	added := l.Config.Hooks
	l.Config.Hooks = prev
	l.Config.Hooks.Sandbox = prev.Sandbox || added.Sandbox
	l.Config.Hooks.ImportClaudeUser = prev.ImportClaudeUser || added.ImportClaudeUser
	for ev, groups := range added.Events {
		for _, g := range groups {
			g.Source = path
			for i := range g.Hooks {
				if g.Hooks[i].Timeout == 0 {
					g.Hooks[i].Timeout = DefaultHookTimeout
				}
			}
			if l.Config.Hooks.Events == nil {
				l.Config.Hooks.Events = HookEvents{}
			}
			l.Config.Hooks.Events[ev] = append(l.Config.Hooks.Events[ev], g)
		}
	}
}

// claudeSettings is the part of a Claude Code settings file coder reads.
type claudeSettings struct {
	Hooks HookEvents `json:"hooks"`
}

// mergeClaudeHooks adds the hooks of a project's .claude/settings.json or
// .claude/settings.local.json, so a project set up for Claude Code runs its
// hooks here too. Its hooks start programs, so they apply only in a
// trusted workspace.
func (l *Loaded) mergeClaudeHooks(path string) error {
	kept, data, found, err := readClaudeHooks(path)
	if !found {
		return err
	}
	// Judged whatever it holds: trusting records every control file's
	// content, so one that gains hooks later is asked about again.
	trusted := l.judge(path, data)
	if len(kept) == 0 {
		return nil
	}
	if !trusted {
		l.ignore(path, filepath.Join(".claude", filepath.Base(path))+" hooks")
		return nil
	}
	l.addClaudeHooks(kept, path)
	return nil
}

// mergeClaudeUserHooks adds the hooks of the person's own Claude Code
// settings when hooks.import_claude_user asks for them: the person's, so no
// trust is needed, but not by default (another tool's hooks, written for
// it, should not start running because coder was installed).
func (l *Loaded) mergeClaudeUserHooks() error {
	if !l.Config.Hooks.ImportClaudeUser {
		return nil
	}
	dir, ok := l.env("CLAUDE_CONFIG_DIR")
	if !ok || dir == "" {
		dir = filepath.Join(homeDir(l.env), ".claude")
	}
	path := filepath.Join(dir, "settings.json")
	kept, _, _, err := readClaudeHooks(path)
	if err == nil && len(kept) > 0 {
		l.addClaudeHooks(kept, path)
	}
	return err
}

// readClaudeHooks reads a Claude Code settings file's hooks. It is another
// tool's file: unknown keys, events coder does not have and hook types
// other than "command" are skipped.
func readClaudeHooks(path string) (kept HookEvents, data []byte, found bool, err error) {
	f, data, found, err := readForeign[claudeSettings](path)
	if !found {
		return nil, nil, false, err
	}
	kept = HookEvents{}
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
	return kept, data, true, nil
}

func (l *Loaded) addClaudeHooks(kept HookEvents, path string) {
	prev := l.Config.Hooks
	l.Config.Hooks = Hooks{Events: kept}
	l.addHooks(prev, path)
	l.Files = append(l.Files, path)
}

// validateHooks checks coder's own hook settings: known events, command
// hooks with a command, a non-negative timeout, matchers that compile.
func validateHooks(ps *problems, h Hooks) {
	for _, ev := range slices.Sorted(maps.Keys(h.Events)) {
		groups := h.Events[ev]
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
