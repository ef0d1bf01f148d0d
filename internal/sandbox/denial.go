package sandbox

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/control"
	"github.com/coder-agent/coder/internal/paths"
	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// Denial says why a failed command looks stopped by the sandbox.
type Denial struct {
	// Kind is "write", "read", "network" or "setup".
	Kind string
	// Path is the path the command was refused, when stderr names it.
	Path string
	// Message is what to tell the model (and the person).
	Message string
}

// writeErrors and networkErrors are the messages the kernel's refusals turn
// into, as libc, Go, Python and Node print them (compared in lower case).
var (
	readOnlyErrors = []string{"read-only file system", "erofs"}
	missingErrors  = []string{"no such file or directory", "enoent"}
	deniedErrors   = []string{"permission denied", "operation not permitted", "eacces", "eperm"}
	networkErrors  = []string{"network is unreachable", "could not resolve host", "temporary failure in name resolution",
		"name or service not known", "no address associated with hostname", "failed to resolve", "getaddrinfo",
		"enotfound", "eai_again", "enetunreach", "connection refused", "econnrefused", "no such host",
		"connect: permission denied", "could not connect to server"}
)

// quoted finds a quoted path ('x', "x", ‘x’, `x') and pathLike a bare one.
// Compiled on first use: most runs never explain a refusal, and the
// sandbox helper starts from this package's init.
var (
	quoted   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("['\"‘`]([^'\"’`]+)['\"’`]") })
	pathLike = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:^|[\s:=(])((?:~|\.{1,2})?/[^\s:'"’,)]*|[\w.-]+/[^\s:'"’,)]*)`)
	})
)

// Explain says whether a command that ended with exitCode and wrote stderr
// was probably stopped by the sandbox p describes, and what to tell the
// model. It judges a message, so it can be wrong; it only explains, the
// kernel enforces.
func Explain(p Profile, exitCode int, stderr string) (Denial, bool) {
	if exitCode == 0 {
		return Denial{}, false
	}
	for _, line := range strings.Split(stderr, "\n") {
		if rest, ok := strings.CutPrefix(line, helper.Prefix); ok {
			return Denial{Kind: "setup", Message: "coder's sandbox could not be set up (" + rest +
				"); the command did not run. Tell the person; do not retry."}, true
		}
	}
	for _, line := range strings.Split(stderr, "\n") {
		low := strings.ToLower(line)
		if !p.Network && containsAny(low, networkErrors) {
			return Denial{Kind: "network", Message: "This looks like coder's sandbox: the network is off " +
				"(sandbox.network is \"off\"), so only the sandbox's own loopback is reachable. " +
				"Work offline, or tell the person the command needs the network."}, true
		}
		erofs := containsAny(low, readOnlyErrors)
		if containsAny(low, missingErrors) {
			if d, ok := p.hiddenTmp(linePath(line, p.Workspace)); ok {
				return d, true
			}
			continue
		}
		if !erofs && !containsAny(low, deniedErrors) {
			continue
		}
		path := linePath(line, p.Workspace)
		if d, ok := p.judge(path, erofs); ok {
			return d, true
		}
	}
	return Denial{}, false
}

// judge decides about one refused path: a read-only file system is the
// sandbox unless the path is one the sandbox lets the command write; a
// plain permission error only when the path is outside those.
func (p Profile) judge(path string, erofs bool) (Denial, bool) {
	if path == "" {
		if !erofs {
			return Denial{}, false
		}
		return Denial{Kind: "write", Message: "This looks like coder's sandbox: the file system is read-only " +
			"outside " + p.writableText() + ". Work there; do not try to get around the sandbox."}, true
	}
	for _, d := range p.DenyRead {
		if paths.Within(d, path) {
			return Denial{Kind: "read", Path: path, Message: "This looks like coder's sandbox: " + path +
				" is kept unreadable (sandbox.deny_read). Do not try to read it another way."}, true
		}
	}
	if p.Policy != ReadOnly {
		rel, err := filepath.Rel(p.Workspace, path)
		isControl := err == nil && control.Is(filepath.ToSlash(rel))
		for _, pr := range p.protected() {
			isControl = isControl || paths.Within(pr, path)
		}
		if isControl {
			return Denial{Kind: "write", Path: path, Message: "This looks like coder's sandbox: " + path +
				" is kept read-only (git's configuration, hooks and pointers, coder's, Claude's and MCP settings " +
				"cannot be changed by commands, at any depth). Ask the person to make that change."}, true
		}
	}
	for _, w := range p.writable() {
		if paths.Within(w, path) {
			return Denial{}, false // an ordinary permission problem
		}
	}
	msg := "This looks like coder's sandbox: " + path + " is outside " + p.writableText() + "."
	if p.Policy == ReadOnly && paths.Within(p.Workspace, path) {
		msg = "This looks like coder's sandbox: the workspace is read-only in plan mode (" + path + ")."
	}
	return Denial{Kind: "write", Path: path, Message: msg +
		" Work inside the writable places; do not try to get around the sandbox " +
		"(a person can widen it with sandbox.writable_roots)."}, true
}

// hiddenTmp explains a path under /tmp that is missing because /tmp is
// private at LevelFull, when the command needed it outside the places
// bound back.
func (p Profile) hiddenTmp(path string) (Denial, bool) {
	if path == "" || !paths.Within("/tmp", path) || p.level() < LevelFull {
		return Denial{}, false
	}
	for _, k := range append(p.writable(), p.Workspace) {
		if paths.Within(k, path) {
			return Denial{}, false
		}
	}
	return Denial{Kind: "hidden", Path: path, Message: "This looks like coder's sandbox: /tmp is private to the command " +
		"(it hides the sockets of tmux, X11 and other services), so " + path + " is not there. Use $TMPDIR (" +
		p.TempDir + ") or the workspace."}, true
}

func (p Profile) writableText() string {
	var parts []string
	if p.Policy != ReadOnly {
		parts = append(parts, "the workspace")
	}
	if p.TempDir != "" {
		parts = append(parts, "$TMPDIR ("+p.TempDir+")")
	}
	if len(p.WritableRoots) > 0 {
		parts = append(parts, "the tool caches")
	}
	if len(parts) == 0 {
		return "nowhere"
	}
	return "the places a command may write: " + strings.Join(parts, ", ")
}

// linePath picks the path an error line is about: a quoted one first,
// else the last bare one before the error (tools print "prog: PATH:
// error"); relative paths are taken from the workspace.
func linePath(line, workspace string) string {
	var cand string
	for _, m := range quoted().FindAllStringSubmatch(line, -1) {
		if strings.ContainsAny(m[1], "/.") && !strings.Contains(m[1], " ") {
			cand = m[1]
			break
		}
	}
	if cand == "" {
		low := strings.ToLower(line)
		at := len(line)
		for _, marker := range append(readOnlyErrors, deniedErrors...) {
			if i := strings.Index(low, marker); i >= 0 && i < at {
				at = i
			}
		}
		for _, m := range pathLike().FindAllStringSubmatchIndex(line, -1) {
			if m[2] >= at && cand != "" {
				break
			}
			cand = line[m[2]:m[3]]
		}
	}
	if cand == "" || strings.HasPrefix(cand, "~") {
		return ""
	}
	if !filepath.IsAbs(cand) {
		cand = filepath.Join(workspace, cand)
	}
	return filepath.Clean(cand)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
