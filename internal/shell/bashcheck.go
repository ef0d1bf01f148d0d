package shell

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/paths"
)

// Danger checks on single commands. Each reason names what the command
// would do, so the person approving it knows what they say yes to.

var (
	downloaders  = set("curl", "wget", "http", "https", "xh", "aria2c", "fetch")
	interpreters = set("perl", "ruby", "node", "nodejs", "php", "lua", "pwsh", "deno", "bun", "osascript")
	powerCmds    = set("shutdown", "reboot", "halt", "poweroff")
	wipeCmds     = set("mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "parted", "sgdisk")
)

func isInterpreter(name string) bool {
	return interpreters[name] || strings.HasPrefix(name, "python")
}

// runsCode: commands that execute a program given as an argument.
func runsCode(name string) bool {
	return shells()[name] || isInterpreter(name) || name == "eval" || name == "source" || name == "."
}

// check runs the danger checks of one (unwrapped) simple command.
func (a *analyzer) check(name string, ws []word, info *callInfo) {
	switch name {
	case "rm":
		a.checkRm(ws)
	case "git":
		a.checkGit(ws)
	case "dd":
		a.checkDd(ws)
	case "chmod", "chown", "chgrp":
		a.checkChmod(name, ws)
	case "kill":
		a.checkKill(ws)
	case "cd", "pushd":
		a.chdir(ws)
	case "systemctl", "init", "telinit":
		a.checkPowerArgs(name, ws)
	}
	switch {
	case powerCmds[name]:
		a.reason(fmt.Sprintf("shuts down or reboots the machine (%s)", name))
	case strings.HasPrefix(name, "mkfs") || wipeCmds[name]:
		a.reason(fmt.Sprintf("formats or wipes a disk (%s)", name))
	case isInterpreter(name) && readsProgramFromStdin(ws):
		info.stdinInterp = true
	}
	for _, t := range writeTargets(name, ws) {
		a.writeTarget(t)
	}
	a.checkSecrets(name, ws)
}

// options splits argv[1:] into option words and operands ("--" ends options).
func options(ws []word) (opts []string, operands []word) {
	done := false
	for _, w := range ws[1:] {
		switch {
		case done || !w.known || len(w.text) < 2 || w.text[0] != '-':
			operands = append(operands, w)
		case w.text == "--":
			done = true
		default:
			opts = append(opts, w.text)
		}
	}
	return opts, operands
}

// hasShort reports a short option letter in any cluster ("-rf", "-R")
// or one of the long spellings.
func hasShort(opts []string, letters string, long ...string) bool {
	for _, o := range opts {
		if strings.HasPrefix(o, "--") {
			for _, l := range long {
				if o == l || strings.HasPrefix(o, l+"=") {
					return true
				}
			}
			continue
		}
		if strings.ContainsAny(o[1:], letters) {
			return true
		}
	}
	return false
}

func (a *analyzer) checkRm(ws []word) {
	opts, targets := options(ws)
	recursive := hasShort(opts, "rR", "--recursive")
	for _, t := range targets {
		if recursive {
			a.recursiveDelete(t)
		}
	}
}

// recursiveDelete reports a recursive delete of a broad target: /, ~,
// the workspace or anything containing it, or a path not known until run time.
func (a *analyzer) recursiveDelete(w word) {
	if !w.known {
		a.reason("recursive delete of a path computed at run time: " + w.text)
		return
	}
	if what := a.broad(w.path); what != "" {
		a.reason(fmt.Sprintf("recursive delete of %q (%s)", w.text, what))
	}
}

// broad names why deleting (or chmod -R of) p hits more than a project
// directory; "" when it does not. "dir/*" counts as dir itself.
func (a *analyzer) broad(p string) string {
	glob := p == "*" || strings.HasSuffix(p, "/*")
	if glob {
		p = strings.TrimSuffix(p, "*")
		if p == "" {
			p = "."
		}
	}
	abs := a.resolve(p)
	home := realPath(a.home)
	switch {
	case abs == "":
		return "relative to a directory computed at run time"
	case abs == "/":
		return "the filesystem root"
	case a.home != "" && abs == home:
		return "the home directory"
	case abs == a.workspace && glob:
		return "everything in the workspace"
	case abs == a.workspace:
		return "the workspace"
	case paths.Within(abs, a.workspace):
		return "contains the workspace"
	case a.home != "" && paths.Within(abs, home):
		return "contains the home directory"
	}
	return ""
}

// gitSub skips git's global options and returns the subcommand and its
// arguments; global reports options that change what git runs (-c).
func gitSub(ws []word) (sub string, args []word, global []string) {
	i := 1
	for i < len(ws) && ws[i].known && strings.HasPrefix(ws[i].text, "-") {
		t := ws[i].text
		global = append(global, t)
		switch t {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env":
			i++
		}
		i++
	}
	if i >= len(ws) || !ws[i].known {
		return "", nil, global
	}
	return ws[i].text, ws[i+1:], global
}

func (a *analyzer) checkGit(ws []word) {
	sub, args, _ := gitSub(ws)
	opts, operands := options(append([]word{{}}, args...))
	cmd := joinWords(ws)
	switch sub {
	case "push":
		force := hasShort(opts, "f", "--force", "--force-with-lease", "--force-if-includes")
		for _, o := range operands {
			force = force || strings.HasPrefix(o.text, "+")
		}
		if force {
			a.reason(fmt.Sprintf("force push (%s)", cmd))
		}
	case "reset":
		if slices.Contains(opts, "--hard") {
			a.reason(fmt.Sprintf("discards uncommitted changes (%s)", cmd))
		}
	case "clean":
		if hasShort(opts, "f", "--force") {
			a.reason(fmt.Sprintf("deletes untracked files (%s)", cmd))
		}
	case "checkout":
		if discardsCheckout(args, opts) {
			a.reason(fmt.Sprintf("discards uncommitted changes (%s)", cmd))
		}
	case "restore":
		staged := hasShort(opts, "S", "--staged")
		if !staged || hasShort(opts, "W", "--worktree") {
			a.reason(fmt.Sprintf("discards uncommitted changes (%s)", cmd))
		}
	case "config":
		if gitConfigWrites(args) {
			a.reason(fmt.Sprintf("changes git's configuration, which decides what git runs (%s)", cmd))
		}
	}
}

// discardsCheckout: "git checkout -- paths", "git checkout ." or -f
// overwrite working-tree changes; switching branches does not.
func discardsCheckout(args []word, opts []string) bool {
	if hasShort(opts, "f", "--force") {
		return true
	}
	for i, w := range args {
		if w.text == "." || (w.text == "--" && i+1 < len(args)) {
			return true
		}
	}
	return false
}

func (a *analyzer) checkDd(ws []word) {
	for _, w := range ws[1:] {
		if !strings.HasPrefix(w.text, "of=") {
			continue
		}
		dest := strings.TrimPrefix(w.text, "of=")
		a.reason("dd writes raw data to " + dest)
	}
}

var worldWritable = sync.OnceValue(func() map[string]bool {
	return set("777", "0777", "a+rwx", "ugo+rwx", "o+w", "a+w", "+w")
})

func (a *analyzer) checkChmod(name string, ws []word) {
	opts, operands := options(ws)
	if !hasShort(opts, "R", "--recursive") || len(operands) < 2 {
		return
	}
	if name == "chmod" && worldWritable()[operands[0].text] {
		a.reason(fmt.Sprintf("makes files world-writable recursively (%s)", joinWords(ws)))
	}
	for _, t := range operands[1:] {
		what := "a path computed at run time"
		if t.known {
			what = a.broad(t.path)
		}
		if what != "" {
			a.reason(fmt.Sprintf("recursive %s of a broad path: %s (%s)", name, t.text, what))
		}
	}
}

// checkKill: a pid of -1 after the signal means every process.
func (a *analyzer) checkKill(ws []word) {
	for i, w := range ws {
		if i >= 2 && w.text == "-1" {
			a.reason("kills every process (" + joinWords(ws) + ")")
		}
	}
}

func (a *analyzer) checkPowerArgs(name string, ws []word) {
	for _, w := range ws[1:] {
		switch {
		case name == "systemctl" && (powerCmds[w.text] || w.text == "kexec"),
			name != "systemctl" && (w.text == "0" || w.text == "6"):
			a.reason(fmt.Sprintf("shuts down or reboots the machine (%s)", joinWords(ws)))
		}
	}
}

// chdir follows cd so "cd / && rm -rf ." is judged where it runs.
func (a *analyzer) chdir(ws []word) {
	_, operands := options(ws)
	switch {
	case len(operands) == 0 && a.home != "":
		a.cwd, a.cwdKnown = realPath(a.home), true
	case len(operands) == 0 || !operands[0].known || operands[0].text == "-":
		a.cwdKnown = false
	default:
		if p := a.resolve(operands[0].path); p != "" {
			a.cwd = p
		}
	}
}

func joinWords(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.text
	}
	return strings.Join(parts, " ")
}

// gitConfigWrites: "git config" sets, unsets or edits a value unless it
// only reads (--get*, --list, -l, or a single name).
func gitConfigWrites(args []word) bool {
	var names []string
	for _, w := range args {
		t := w.text
		switch {
		case strings.HasPrefix(t, "--get"), t == "--list", t == "-l", t == "--show-origin", t == "--show-scope",
			t == "get", t == "list":
			return false
		case strings.HasPrefix(t, "--unset"), strings.HasPrefix(t, "--replace"), t == "--add", t == "--edit",
			t == "-e", strings.HasPrefix(t, "--rename-section"), strings.HasPrefix(t, "--remove-section"),
			t == "set", t == "unset", t == "edit":
			return true
		case !strings.HasPrefix(t, "-"):
			names = append(names, t)
		}
	}
	return len(names) >= 2
}
