package permission

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/coder-agent/coder/internal/shell"
	"github.com/coder-agent/coder/internal/tools"
)

// Rule is one permission rule (opencode's {permission, pattern, action}).
// Rules are evaluated in order and the last match wins.
type Rule struct {
	// Tool is a tool name, "*" for any; "*" inside a name matches any
	// characters ("mcp_*").
	Tool string
	// Pattern: "" or "*" matches any call of the tool. For bash it is a
	// command pattern matched on the parsed argv of each simple command:
	// words match words ("*" and "?" inside a word are wildcards) and a
	// trailing "*" (or Claude Code's ":*") means "and any further
	// arguments", so "git status*" matches "git status -s" but not
	// "git statusx"; a trailing "/*" globs the last word instead
	// ("rm -rf /tmp/*"). ReadOnlyPattern matches the read-only whitelist. For
	// file tools it is a doublestar glob on the workspace-relative or
	// absolute path; for other tools a wildcard on the subject (e.g. URL).
	Pattern string
	Action  Action
	// Exact: Pattern is one literal command or path (an allowlist entry),
	// with no wildcards.
	Exact bool
	// Source says where the rule comes from ("balanced preset", "config
	// permission.bash[0]"); reasons and /permissions show it.
	Source string
}

// Ruleset is an ordered list of rules; the last matching rule wins.
type Ruleset []Rule

// ReadOnlyPattern is the bash pattern matching any command on the
// read-only whitelist (with no redirection that writes).
const ReadOnlyPattern = "<read-only>"

// anyPattern: the rule applies to every call of its tool.
func (r Rule) anyPattern() bool { return r.Pattern == "" || r.Pattern == "*" }

func (r Rule) matchesTool(tool string) bool {
	return r.Tool == "*" || r.Tool == tool || (strings.Contains(r.Tool, "*") && wildcard(r.Tool, tool))
}

// compiledRule is a rule with its bash pattern split once.
type compiledRule struct {
	Rule
	words []string // pattern words
	rest  bool     // trailing "*": any further arguments
	argv  []string // exact rule that is one simple command: its argv
}

func compileRule(r Rule) compiledRule {
	c := compiledRule{Rule: r}
	if r.anyPattern() || r.Pattern == ReadOnlyPattern {
		return c
	}
	if !r.Exact {
		c.words, c.rest = splitPattern(r.Pattern)
		return c
	}
	if r.Tool != tools.Bash {
		return c
	}
	if a := shell.Analyze(r.Pattern, shell.Options{Workspace: "/"}); a.ParseError == "" && len(a.Commands) == 1 {
		c.argv = a.Commands[0].Argv()
	}
	return c
}

// matchCommand matches a bash rule against one simple command; whole is
// the normalized full command line, which exact (allowlist) rules may
// match as a whole.
func (r compiledRule) matchCommand(c shell.Command, whole string) bool {
	switch {
	case r.anyPattern():
		return true
	case r.Pattern == ReadOnlyPattern:
		return c.ReadOnly()
	case r.Exact:
		return normalize(r.Pattern) == whole || sameArgv(r.argv, c)
	}
	if c.Len() < len(r.words) || (!r.rest && c.Len() != len(r.words)) {
		return false
	}
	for i, p := range r.words {
		text, known := c.Word(i)
		if !known || !wildcard(p, text) {
			return false
		}
	}
	return true
}

// splitPattern turns "git status*" into ["git" "status"] + rest. A
// trailing "/*" stays a glob on the last word ("rm -rf /tmp/*" matches
// "rm -rf /tmp/x"), and further arguments are allowed too.
func splitPattern(p string) (words []string, rest bool) {
	p = strings.TrimSpace(p)
	if strings.HasSuffix(p, "/*") {
		return strings.Fields(p), true
	}
	for _, suffix := range []string{":*", "*"} {
		if strings.HasSuffix(p, suffix) {
			p, rest = strings.TrimSuffix(p, suffix), true
			break
		}
	}
	return strings.Fields(p), rest
}

// sameArgv: an allowlisted command that is one simple command matches
// that command literally, wherever it appears in a compound line.
func sameArgv(argv []string, c shell.Command) bool {
	if argv == nil || len(argv) != c.Len() {
		return false
	}
	for i, s := range argv {
		if text, known := c.Word(i); !known || text != s {
			return false
		}
	}
	return true
}

func normalize(cmd string) string { return strings.Join(strings.Fields(cmd), " ") }

// matchPath matches a file-tool rule against a path given relative to the
// workspace (rel, "" when outside) and absolute.
func (r Rule) matchPath(rel, abs string) bool {
	switch {
	case r.anyPattern():
		return true
	case r.Exact:
		return filepath.ToSlash(r.Pattern) == rel || r.Pattern == abs
	}
	if rel != "" {
		if ok, _ := doublestar.Match(r.Pattern, rel); ok {
			return true
		}
	}
	ok, _ := doublestar.Match(r.Pattern, filepath.ToSlash(abs))
	return ok
}

// matchSubject matches any other tool's rule against its subject (a URL,
// an agent name, …).
func (r Rule) matchSubject(s string) bool {
	switch {
	case r.anyPattern():
		return true
	case r.Exact:
		return r.Pattern == s
	}
	return wildcard(r.Pattern, s)
}

// wildcard matches s against p where "*" is any run of characters
// (slashes included) and "?" any one character.
func wildcard(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if wildcard(p, s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
		}
		p, s = p[1:], s[1:]
	}
	return s == ""
}

// last returns the last rule for tool that match accepts.
func last(rs []compiledRule, tool string, match func(compiledRule) bool) (compiledRule, bool) {
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].matchesTool(tool) && match(rs[i]) {
			return rs[i], true
		}
	}
	return compiledRule{}, false
}

// severity orders actions: deny > ask > allow.
func severity(a Action) int {
	switch a {
	case Deny:
		return 2
	case Ask:
		return 1
	}
	return 0
}

func stricter(a, b Action) bool { return severity(a) > severity(b) }
