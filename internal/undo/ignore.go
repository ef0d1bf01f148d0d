package undo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/coder-agent/coder/internal/ignore"
)

// ignoreRules decides which workspace entries a Scanner leaves out: entries
// named .git, coder's own session state, and what .gitignore files exclude —
// those at every level below the root (deeper ones win, as in git), those
// above it up to the enclosing repository's top, and .git/info/exclude. It
// mirrors the rules of the file tools (internal/tools), which are unexported.
type ignoreRules struct {
	root    string
	outside []gitignore.Pattern // from above the root and info/exclude
	dirs    ignore.DirCache
	// sources are the files outside the tree the rules depend on: a .git
	// looked for, the .gitignore files above the root, info/exclude.
	sources []string
}

func newIgnoreRules(root string) *ignoreRules {
	r := &ignoreRules{root: root}
	top := root
	var above []string
	for d := root; ; {
		r.sources = append(r.sources, filepath.Join(d, ".git"))
		if ignore.Exists(filepath.Join(d, ".git")) {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			above, top = nil, root // not in a repository: only the root's own files
			break
		}
		d = parent
		above = append(above, d)
		top = d
	}
	for i := len(above) - 1; i >= 0; i-- { // outermost first: lowest priority
		r.sources = append(r.sources, filepath.Join(above[i], ".gitignore"))
		r.outside = append(r.outside, ignore.ReadPatterns(above[i], ".gitignore")...)
	}
	r.sources = append(r.sources, filepath.Join(top, ".git", "info", "exclude"))
	r.outside = append(r.outside, ignore.ReadPatterns(top, filepath.Join(".git", "info", "exclude"))...)
	// A workspace the repository ignores (a scratch directory) is still
	// scanned: the rules from outside then do not apply at all.
	path := ignore.SplitPath(root)
	for i := len(ignore.SplitPath(top)) + 1; i <= len(path); i++ {
		if ignore.LastMatch(r.outside, path[:i], true) == gitignore.Exclude {
			r.outside = nil
			break
		}
	}
	return r
}

// skip reports whether the entry at abs is left out. Its parent directories
// are assumed to have passed, as in a walk.
func (r *ignoreRules) skip(abs string, isDir bool) bool {
	if filepath.Base(abs) == ".git" || ignore.IsCoderState(abs) {
		return true
	}
	var path []string // split only when some patterns apply: most dirs have none
	for dir := filepath.Dir(abs); len(dir) >= len(r.root); dir = filepath.Dir(dir) {
		if ps := r.dirs.Load(dir); len(ps) > 0 {
			if path == nil {
				path = ignore.SplitPath(abs)
			}
			if m := ignore.LastMatch(ps, path, isDir); m != gitignore.NoMatch {
				return m == gitignore.Exclude
			}
		}
		if dir == r.root || dir == filepath.Dir(dir) {
			break
		}
	}
	if len(r.outside) == 0 {
		return false
	}
	if path == nil {
		path = ignore.SplitPath(abs)
	}
	return ignore.LastMatch(r.outside, path, isDir) == gitignore.Exclude
}

// key describes the sources as they are now: rules whose key is unchanged
// would be read the same.
func (r *ignoreRules) key() string {
	var b strings.Builder
	for _, p := range r.sources {
		if filepath.Base(p) == ".git" {
			// Whether it is there, not its time: git writes in it.
			fmt.Fprintf(&b, "%v;", ignore.Exists(p))
		} else if fi, err := os.Lstat(p); err == nil {
			fmt.Fprintf(&b, "%v;", statOf(fi))
		} else {
			b.WriteString("-;")
		}
	}
	return b.String()
}
