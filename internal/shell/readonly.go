package shell

import (
	"slices"
	"strings"
	"sync"
)

// The read-only whitelist: commands that only look. Plan mode
// runs them directly; every preset allows them. It is judged on the parsed
// argv, so "find -delete", "git branch -D" or "sort -o f" are not read-only.

// roCheck inspects a command's arguments; nil means any known arguments.
type roCheck func(args []string) bool

// readOnlyCommands maps a command to its argument check.
var readOnlyCommands = sync.OnceValue(func() map[string]roCheck {
	return map[string]roCheck{
		"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "grep": nil, "egrep": nil,
		"fgrep": nil, "pwd": nil, "id": nil, "whoami": nil, "uname": nil, "echo": nil, "printf": nil,
		"true": nil, "false": nil, ":": nil, "basename": nil, "dirname": nil, "stat": nil,
		"file": nil, "du": nil, "df": nil, "which": nil, "type": nil, "realpath": nil,
		"readlink": nil, "nl": nil, "od": nil, "hexdump": nil, "strings": nil, "cut": nil,
		"tr": nil, "column": nil, "seq": nil, "test": nil, "[": nil, "cd": nil, "pushd": nil,
		"popd": nil, "printenv": nil, "env": nil, "md5sum": nil, "sha1sum": nil, "sha256sum": nil,
		"sha512sum": nil, "cksum": nil, "diff": nil, "cmp": nil, "comm": nil, "less": nil,
		"more": nil, "jq": nil, "ps": nil, "uptime": nil, "free": nil, "export": nil,
		"declare": nil, "local": nil, "readonly": nil, "typeset": nil, "command": nil,
		"tree":     noneOf("-o"),
		"rg":       noPrefix("--pre"),
		"sort":     noPrefix("-o", "--output"),
		"date":     noPrefix("-s", "--set"),
		"uniq":     maxOperands(1),
		"hostname": maxOperands(0),
		"xxd":      func(args []string) bool { return noneOf("-r", "-revert")(args) && maxOperands(1)(args) },
		"find":     noneOf("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"),
		"go":       goReadOnly,
		"git":      gitReadOnly,
	}
})

// pureReaders may take words computed at run time ("cat $f", "echo $X"):
// no argument can make them write or run something.
var pureReaders = sync.OnceValue(func() map[string]bool {
	return set("ls", "cat", "head", "tail", "wc", "pwd", "echo", "printf", "basename",
		"dirname", "stat", "file", "du", "which", "type", "true", "false", ":", "test", "[")
})

// ReadOnly: the command is on the read-only whitelist with arguments it
// allows, and no redirection writes.
func (c Command) ReadOnly() bool {
	if c.writes || c.function {
		return false
	}
	if len(c.words) == 0 {
		return true
	}
	if !c.words[0].known {
		return false
	}
	name := cmdName(c.words[0].text)
	check, ok := readOnlyCommands()[name]
	if !ok {
		return false
	}
	args := make([]string, 0, len(c.words)-1)
	for _, w := range c.words[1:] {
		if !w.known && !pureReaders()[name] {
			return false
		}
		args = append(args, w.text)
	}
	return check == nil || check(args)
}

// IsReadOnly reports whether a command line only reads: it parses and
// every simple command in it is on the read-only whitelist.
func IsReadOnly(command string) bool {
	return Analyze(command, Options{Workspace: "."}).ReadOnly
}

func noneOf(bad ...string) roCheck {
	return func(args []string) bool {
		for _, a := range args {
			if slices.Contains(bad, a) {
				return false
			}
		}
		return true
	}
}

func noPrefix(bad ...string) roCheck {
	return func(args []string) bool {
		for _, a := range args {
			for _, b := range bad {
				if strings.HasPrefix(a, b) {
					return false
				}
			}
		}
		return true
	}
}

func maxOperands(n int) roCheck {
	return func(args []string) bool { return len(plainOperands(args)) <= n }
}

// plainOperands are the words that are not options.
func plainOperands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a)
		}
	}
	return out
}

func goReadOnly(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "version", "list", "doc":
		return true
	case "env":
		return noneOf("-w", "-u")(args)
	}
	return false
}

// gitReadOnlySubs are git subcommands that only read, with a check of
// their arguments where some spellings write.
var gitReadOnlySubs = sync.OnceValue(func() map[string]roCheck {
	return map[string]roCheck{
		"status": nil, "diff": noPrefix("--output"), "log": noPrefix("--output"), "show": noPrefix("--output"),
		"blame": nil, "ls-files": nil, "ls-tree": nil, "rev-parse": nil, "describe": nil,
		"shortlog": nil, "cat-file": nil, "grep": nil, "merge-base": nil, "name-rev": nil,
		"rev-list": nil, "whatchanged": nil, "count-objects": nil, "show-ref": nil,
		"for-each-ref": nil, "reflog": firstOperandIn("show"), "stash": firstOperandIn("list", "show"),
		"worktree": firstOperandIn("list"), "remote": firstOperandIn("show", "get-url"),
		"branch": listOnly("-d", "-D", "--delete", "-m", "-M", "--move", "-c", "-C", "--copy",
			"-f", "--force", "-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-t", "--track"),
		"tag":    listOnly("-d", "--delete", "-a", "-s", "-u", "-f", "--force", "-m", "-F", "--annotate", "--sign"),
		"config": gitConfigReadOnly,
	}
})

func gitReadOnly(args []string) bool {
	ws := make([]word, 0, len(args)+1)
	ws = append(ws, knownWord("git"))
	for _, a := range args {
		ws = append(ws, knownWord(a))
	}
	sub, rest, global := gitSub(ws)
	// -c core.pager=… or core.fsmonitor=… runs programs.
	if slices.Contains(global, "-c") || slices.Contains(global, "--config-env") {
		return false
	}
	check, ok := gitReadOnlySubs()[sub]
	if !ok {
		return false
	}
	strs := make([]string, len(rest))
	for i, w := range rest {
		strs[i] = w.text
	}
	return check == nil || check(strs)
}

// firstOperandIn: no operand (the default is a listing) or a listing one.
func firstOperandIn(ok ...string) roCheck {
	return func(args []string) bool {
		ops := plainOperands(args)
		return len(ops) == 0 || slices.Contains(ok, ops[0])
	}
}

// listOnly: git branch/tag list when given no name (or --list) and none
// of the options that create, delete or move.
func listOnly(bad ...string) roCheck {
	return func(args []string) bool {
		if !noneOf(bad...)(args) {
			return false
		}
		return len(plainOperands(args)) == 0 || slices.Contains(args, "--list") || slices.Contains(args, "-l")
	}
}

func gitConfigReadOnly(args []string) bool {
	if !noneOf("--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e",
		"--rename-section", "--remove-section")(args) {
		return false
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--get") || a == "--list" || a == "-l" {
			return true
		}
	}
	return len(plainOperands(args)) <= 1
}

// ReadOnlyNames lists the whitelist for /permissions.
func ReadOnlyNames() []string {
	names := make([]string, 0, len(readOnlyCommands()))
	for n := range readOnlyCommands() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
