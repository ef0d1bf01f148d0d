package shell

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// wrapSpec describes a command that runs the command given in its
// arguments, so the inner command is what really runs.
type wrapSpec struct {
	valueOpts  []string // options that take the next word as their value
	stopOpts   []string // options meaning "do not run anything" (command -v)
	positional int      // words between the options and the command (timeout's DURATION)
	assigns    bool     // VAR=value words before the command (env)
}

// transparent wrappers: the policy judges the inner command, not the
// wrapper, so "timeout 60 go test ./..." passes a "go test*" rule.
var transparent = sync.OnceValue(func() map[string]wrapSpec {
	return map[string]wrapSpec{
		"env":     {valueOpts: []string{"-u", "--unset", "-C", "--chdir"}, assigns: true},
		"nohup":   {},
		"time":    {valueOpts: []string{"-f", "--format", "-o", "--output"}},
		"nice":    {valueOpts: []string{"-n", "--adjustment"}},
		"timeout": {valueOpts: []string{"-s", "--signal", "-k", "--kill-after"}, positional: 1},
		"command": {stopOpts: []string{"-v", "-V"}},
		"builtin": {},
		"exec":    {valueOpts: []string{"-a"}},
		"stdbuf":  {valueOpts: []string{"-i", "-o", "-e"}},
		"ionice":  {valueOpts: []string{"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}},
		"setsid":  {},
		"busybox": {},
	}
})

// privileged wrappers are dangerous themselves and also run a command.
var privileged = sync.OnceValue(func() map[string]wrapSpec {
	return map[string]wrapSpec{
		"sudo": {valueOpts: []string{"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U",
			"--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role",
			"--type", "--command-timeout", "--other-user"}, stopOpts: []string{"-l", "-v", "-k", "-K"}, assigns: true},
		"doas":   {valueOpts: []string{"-u", "-C"}},
		"pkexec": {valueOpts: []string{"--user"}},
		"run0":   {valueOpts: []string{"-u", "--user", "-g", "--group", "-D", "--chdir"}},
		"su":     {valueOpts: []string{"-c", "--command", "-s", "--shell", "-g", "--group", "-G"}},
	}
})

var shells = sync.OnceValue(func() map[string]bool {
	return set("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh")
})

var assignRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// set builds a lookup table. The package's larger tables are built at their
// first use (sync.OnceValue), not at start-up: most runs of coder analyse
// no command at all.
func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// cmdName is the name a command is known by: "/usr/bin/rm" is rm.
func cmdName(s string) string { return filepath.Base(s) }

// exec handles the argv of one simple command: it unwraps wrappers,
// re-parses shell strings, records what the policy judges, and checks.
func (a *analyzer) exec(ws []word, c ctx, depth int, info *callInfo) {
	if len(ws) == 0 {
		return
	}
	if !ws[0].known {
		a.reason(reasonComputedCmd + ": " + ws[0].text)
		a.record(ws, c)
		return
	}
	name := cmdName(ws[0].text)
	if spec, ok := transparent()[name]; ok {
		a.wrapped(name, ws, spec, c, depth, info)
		return
	}
	if spec, ok := privileged()[name]; ok {
		a.reason(fmt.Sprintf("runs with elevated privileges (%s)", name))
		a.record(ws, c)
		a.wrapped(name, ws, spec, c, depth, info)
		return
	}
	switch {
	case shells()[name] && a.shell(ws, c, depth, info):
		return
	case name == "eval":
		a.eval(ws, c, depth)
		return
	case name == "xargs":
		a.record(ws, c)
		a.xargs(ws, c, depth, info)
		return
	case name == "find":
		a.record(ws, c)
		a.find(ws, c, depth, info)
		return
	}
	a.record(ws, c)
	a.check(name, ws, info)
}

// wrapped runs the command inside a wrapper; with none (env alone,
// command -v) the wrapper itself is what runs.
func (a *analyzer) wrapped(name string, ws []word, spec wrapSpec, c ctx, depth int, info *callInfo) {
	if s, ok := stringOpt(ws, "-S", "--split-string"); ok && name == "env" {
		a.subShell(s, "env -S", c, depth)
		return
	}
	if s, ok := stringOpt(ws, "-c", "--command"); ok && name == "su" {
		a.subShell(s, "su -c", c, depth)
		return
	}
	inner, ok := unwrap(ws, spec)
	if !ok {
		if _, priv := privileged()[name]; !priv {
			a.record(ws, c)
		}
		return
	}
	a.exec(inner, c, depth, info)
}

// unwrap skips a wrapper's options and returns the command it runs.
func unwrap(ws []word, spec wrapSpec) ([]word, bool) {
	i := 1
	for i < len(ws) && ws[i].known {
		t := ws[i].text
		if t == "--" {
			i++
			break
		}
		if spec.assigns && assignRE().MatchString(t) {
			i++
			continue
		}
		if len(t) < 2 || t[0] != '-' {
			break
		}
		if slices.Contains(spec.stopOpts, t) {
			return nil, false
		}
		if slices.Contains(spec.valueOpts, t) {
			i++
		}
		i++
	}
	i += spec.positional
	if i >= len(ws) {
		return nil, false
	}
	return ws[i:], true
}

// stringOpt finds the value of an option that carries a command string.
func stringOpt(ws []word, short, long string) (word, bool) {
	for i, w := range ws {
		switch {
		case (w.text == short || w.text == long) && i+1 < len(ws):
			return ws[i+1], true
		case strings.HasPrefix(w.text, long+"="):
			return knownWord(strings.TrimPrefix(w.text, long+"=")), w.known
		}
	}
	return word{}, false
}

// subShell analyses a command string another command will run.
func (a *analyzer) subShell(s word, via string, c ctx, depth int) {
	if !s.known {
		a.reason(fmt.Sprintf("runs a command string computed at run time (%s %s)", via, s.text))
		return
	}
	a.source(s.text, c, depth+1)
}

// shell handles sh/bash/…: "-c STRING" is re-parsed; with neither -c nor a
// script the shell reads its program from stdin. It reports whether it
// recorded the command itself.
func (a *analyzer) shell(ws []word, c ctx, depth int, info *callInfo) bool {
	hasC, stdin, i := false, false, 1
	for ; i < len(ws) && ws[i].known; i++ {
		t := ws[i].text
		if t == "--" || t == "-" {
			stdin = stdin || t == "-"
			i++
			break
		}
		if len(t) < 2 || (t[0] != '-' && t[0] != '+') {
			break
		}
		if t == "--rcfile" || t == "--init-file" || t == "-o" || t == "+o" || t == "-O" || t == "+O" {
			i++
			continue
		}
		if !strings.HasPrefix(t, "--") {
			hasC = hasC || strings.ContainsRune(t[1:], 'c')
			stdin = stdin || strings.ContainsRune(t[1:], 's')
		}
	}
	operands := ws[min(i, len(ws)):]
	switch {
	case hasC && len(operands) > 0:
		a.subShell(operands[0], cmdName(ws[0].text)+" -c", c, depth)
		if !operands[0].known {
			a.record(ws, c)
		}
		return true
	case len(operands) == 0 || stdin:
		info.stdinInterp = true
	}
	return false
}

func (a *analyzer) eval(ws []word, c ctx, depth int) {
	parts := make([]string, 0, len(ws)-1)
	for _, w := range ws[1:] {
		if !w.known {
			a.reason("runs a command string computed at run time (eval " + w.text + ")")
			a.record(ws, c)
			return
		}
		parts = append(parts, w.text)
	}
	a.source(strings.Join(parts, " "), c, depth+1)
}

var xargsValueOpts = []string{"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s",
	"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args",
	"--max-procs", "--max-chars", "--process-slot-var"}

// xargs runs its command with arguments read from stdin: they are unknown.
func (a *analyzer) xargs(ws []word, c ctx, depth int, info *callInfo) {
	inner, ok := unwrap(ws, wrapSpec{valueOpts: xargsValueOpts})
	if !ok {
		inner = []word{knownWord("echo")}
	}
	input := unknownWord("(xargs input)")
	replace := ""
	for i, w := range ws {
		if w.text == "-I" && i+1 < len(ws) {
			replace = ws[i+1].text
		}
	}
	out := make([]word, 0, len(inner)+1)
	for _, w := range inner {
		if replace != "" && strings.Contains(w.text, replace) {
			w = input
		}
		out = append(out, w)
	}
	if replace == "" {
		out = append(out, input)
	}
	a.exec(out, c, depth, info)
}
