package permission

import (
	"strings"

	"github.com/coder-agent/coder/internal/shell"
	"github.com/coder-agent/coder/internal/tools"
)

// What a rule's pattern is matched against: a bash call's simple commands,
// a file tool's paths, any other tool's subject. All of it comes from the
// decoded call; nothing here reads the arguments again.

// bashVerdicts judges every simple command of the command line; an
// unparseable line is one command whose name is unknown, so only
// catch-all rules match it.
func (e *Engine) bashVerdicts(an *shell.Analysis, rs, guard []compiledRule) []verdict {
	if an == nil {
		return []verdict{{action: Ask, rule: compiledRule{Rule: Rule{Source: "the command could not be read"}}}}
	}
	cmds := an.Judged()
	whole := normalize(an.Source)
	vs := make([]verdict, 0, len(cmds))
	for _, cmd := range cmds {
		match := func(r compiledRule) bool { return r.matchCommand(cmd, whole) }
		subject := strings.Join(cmd.Argv(), " ")
		if len(cmds) == 1 {
			subject = strings.TrimSpace(an.Source)
		}
		vs = append(vs, judge(tools.Bash, subject, rs, guard, match))
	}
	return vs
}

// pathVerdicts judges every path a file tool touches.
func (e *Engine) pathVerdicts(c *tools.Call, rs, guard []compiledRule) []verdict {
	if len(c.Paths) == 0 {
		match := func(r compiledRule) bool { return r.anyPattern() }
		return []verdict{judge(c.Name, "", rs, guard, match)}
	}
	vs := make([]verdict, 0, len(c.Paths))
	for _, p := range c.Paths {
		rel := ""
		if p.Inside {
			rel = p.Rel
		}
		match := func(r compiledRule) bool { return r.matchPath(rel, p.Abs) }
		vs = append(vs, judge(c.Name, p.Arg, rs, guard, match))
	}
	return vs
}
