// Package control names the workspace's control files: the files that
// decide what coder, git or another agent will run or allow — coder's own
// config, rules and state, MCP server lists, Claude Code's settings (hooks),
// git's config, hooks and the pointers that send git to another directory —
// wherever they appear in the tree: a nested repository or a sub-directory
// someone starts coder in obeys its own. A model that could rewrite one
// could raise its own power at the next start, so writing one always needs
// a person, and the sandbox keeps them read-only for commands.
package control

import (
	"path"
	"strings"
)

// Place is what a directory is, for the control files in it: an ordinary
// directory of the tree, a git directory or a part of one. Step moves from
// a directory to an entry in it.
type Place uint8

const (
	// Tree is an ordinary directory of the workspace.
	Tree Place = iota
	// GitDir is a git directory: a .git directory, a submodule's under
	// .git/modules, a linked worktree's under .git/worktrees.
	GitDir
	// GitModules is below a git directory's modules/: submodules' git
	// directories, whose names may hold slashes.
	GitModules
	// GitWorktrees is a git directory's worktrees/.
	GitWorktrees
	// Control is a control entry: it and everything below it count.
	Control
	// Other is neither a control entry nor anything that holds one.
	Other
)

// Names are the control entries of an ordinary directory, at any depth:
// coder's and Claude Code's settings, MCP server lists. A ".git" entry is a
// repository (GitName).
var Names = []string{".coder", ".claude", ".mcp.json"}

// GitName is a repository's entry: a directory, or a file "gitdir: …" that
// sends git elsewhere. Replacing it redirects git, so it counts as a
// control entry itself (IsEntry), though most of a git directory does not.
const GitName = ".git"

// GitEntries are the control entries of a git directory: its config, its
// hooks, the pointer to a common directory (whose config then applies) and
// a worktree's own config.
var GitEntries = []string{"config", "hooks", "commondir", "config.worktree"}

// gitData are the parts of a submodule's git directory that hold data
// only; everything else below modules/ may be another submodule's.
var gitData = []string{"objects", "refs", "logs", "info", "lfs"}

// Step is the place of the entry name inside a directory at place in.
func Step(in Place, name string) Place {
	switch in {
	case Tree:
		switch {
		case has(Names, name):
			return Control
		case name == GitName:
			return GitDir
		}
		return Tree
	case GitDir, GitModules:
		switch {
		case has(GitEntries, name):
			return Control
		case name == "modules":
			return GitModules
		case name == "worktrees":
			return GitWorktrees
		case in == GitDir, has(gitData, name):
			return Other
		}
		return GitModules // a submodule's name, or its git directory
	case GitWorktrees:
		return GitDir // each worktree's private git directory
	}
	return in // Control and Other hold on below
}

// Is reports whether rel (relative to the workspace, slash-separated) is a
// control file or inside a control directory.
func Is(rel string) bool {
	rel = path.Clean(strings.TrimPrefix(rel, "./"))
	if rel == "." || strings.HasPrefix(rel, "../") || rel == ".." {
		return false
	}
	p := Tree
	parts := strings.Split(rel, "/")
	for i, name := range parts {
		prev := p
		p = Step(p, name)
		switch {
		case p == Control:
			return true
		case p == Other:
			return false
		case i == len(parts)-1:
			return IsEntry(prev, name)
		}
	}
	return false
}

// IsEntry reports whether the entry name of a directory at place in is
// itself a control entry: one of Names or GitEntries, or a repository's
// .git, which must not be replaced though most of what it holds may change.
func IsEntry(in Place, name string) bool {
	p := Step(in, name)
	return p == Control || in == Tree && p == GitDir
}

// Reason is the approval reason for changing rel, or "" when rel is not a
// control file.
func Reason(rel string) string {
	if !Is(rel) {
		return ""
	}
	return "changes a control file (" + rel + "): it decides what coder or git may run"
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
