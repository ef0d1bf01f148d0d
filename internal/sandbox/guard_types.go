package sandbox

import (
	"errors"
	"runtime"
)

// What the guard's callers see on every platform; the guard itself is in
// guard.go (Unix) and guard_other.go.

// Coverage is what the mounts protect in a workspace at LevelFull, from a
// scan of the whole tree (and of the git directories outside it that
// commands may write): listed by coder doctor, applied to every call.
type Coverage struct {
	// Pinned are the repositories' .git directories, bound onto
	// themselves: still writable (git add, git commit), but a mount point
	// cannot be renamed, removed or replaced by a "gitdir:" file.
	Pinned []string
	// ReadOnly are the other control entries, bound read-only: .coder,
	// .claude, .mcp.json and .git files at any depth, and every git
	// directory's config, hooks, commondir and config.worktree.
	ReadOnly []string
	// Unbound are control entries that are symlinks: a mount would
	// protect the target, not the link, so Restore checks the link.
	Unbound []string
	// Masked are the files DenyReadPatterns name: empty and read-only.
	Masked []string
	// Dirs is how many directories the scan looked at.
	Dirs int
}

// ErrJournalWritable: the journal directory lies where commands may write
// (coder's user directory inside the workspace, say): a journal there could
// be forged, so none is kept or read.
var ErrJournalWritable = errors.New("coder's sandbox journal would be in a directory commands may write; none is kept, so a coder that dies mid-call leaves its commands' changes to control files")

// ErrNoGuard is what Profile.Coverage says where there is no control-file
// guard (Windows: guard_other.go).
var ErrNoGuard = errors.New("not guarded on " + runtime.GOOS + ": commands may change .git/config, .git/hooks, .coder and .mcp.json like any other file (run coder inside WSL for the Linux sandbox and its guard)")
