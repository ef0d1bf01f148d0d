// Package control names the workspace's control files: the files that
// decide what coder and git will run or allow — coder's own config, rules
// and state, MCP server lists, hook settings, git's config and hooks. A
// model that could rewrite them could raise its own power at the next start,
// so writing one always needs a person (and the sandbox keeps them
// read-only for commands).
package control

import (
	"path"
	"strings"
)

// Dirs are control directories (everything below them counts) and Files
// single control files, relative to the workspace root.
var (
	Dirs  = []string{".coder", ".git/hooks"}
	Files = []string{".mcp.json", ".git/config", ".claude/settings.json", ".claude/settings.local.json"}
)

// Is reports whether rel (relative to the workspace, slash-separated) is a
// control file or inside a control directory.
func Is(rel string) bool {
	rel = path.Clean(strings.TrimPrefix(rel, "./"))
	for _, f := range Files {
		if rel == f {
			return true
		}
	}
	for _, d := range Dirs {
		if rel == d || strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

// Reason is the approval reason for changing rel, or "" when rel is not a
// control file.
func Reason(rel string) string {
	if !Is(rel) {
		return ""
	}
	return "changes a control file (" + rel + "): it decides what coder or git may run"
}
