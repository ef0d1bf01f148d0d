package tools

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/charlievieth/fastwalk"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/coder-agent/coder/internal/ignore"
)

// ignoreRules decides which entries list, glob and grep skip below a root:
// every entry named .git, and whatever .gitignore files exclude.
//
// Two sets of .gitignore files count, each on its own (an entry is skipped
// when either excludes it): those in the root and below it, nested ones
// taking precedence as in git; and those in the root's parent directories up
// to the enclosing repository's top (the first one holding .git) or, outside
// a repository, up to the workspace root. The parent set is dropped when it
// excludes the root itself: a directory asked for by name is searched.
// .git/info/exclude, global excludes and .ignore files are not read. Hidden
// files are not skipped. The rg backend of grep is run with the matching
// flags and its results are filtered through skipPath, so both agree.
type ignoreRules struct {
	root    string
	parents []gitignore.Pattern
	dirs    ignore.DirCache
}

// newIgnoreRules returns the rules for a walk of root (absolute, clean).
func newIgnoreRules(root, workspaceRoot string) *ignoreRules {
	r := &ignoreRules{root: root}
	dirs := ancestorDirs(root, workspaceRoot)
	for i := len(dirs) - 1; i >= 0; i-- { // outermost first: lowest priority
		r.parents = append(r.parents, ignore.ReadPatterns(dirs[i], ".gitignore")...)
	}
	if r.parentsExclude(root) {
		r.parents = nil
	}
	return r
}

// ancestorDirs lists the directories above root whose .gitignore counts,
// innermost first.
func ancestorDirs(root, workspaceRoot string) []string {
	if ignore.Exists(filepath.Join(root, ".git")) {
		return nil
	}
	var dirs []string
	wsIdx := -1
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if ignore.Exists(filepath.Join(d, ".git")) {
			return dirs
		}
		if d == workspaceRoot {
			wsIdx = len(dirs) - 1
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	if wsIdx < 0 {
		return nil
	}
	return dirs[:wsIdx+1]
}

func (r *ignoreRules) parentsExclude(dir string) bool {
	path := ignore.SplitPath(dir)
	for i := 1; i <= len(path); i++ {
		if ignore.LastMatch(r.parents, path[:i], true) == gitignore.Exclude {
			return true
		}
	}
	return false
}

// skip reports whether the entry at abs, below root, is skipped. Its parent
// directories are assumed to have passed already, as in a walk.
func (r *ignoreRules) skip(abs string, isDir bool) bool {
	if filepath.Base(abs) == ".git" || ignore.IsCoderState(abs) {
		return true
	}
	path := ignore.SplitPath(abs)
	if ignore.LastMatch(r.parents, path, isDir) == gitignore.Exclude {
		return true
	}
	for dir := filepath.Dir(abs); strings.HasPrefix(dir, r.root); dir = filepath.Dir(dir) {
		if m := ignore.LastMatch(r.dirs.Load(dir), path, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
		if dir == r.root || dir == filepath.Dir(dir) {
			break
		}
	}
	return false
}

// skipPath is skip for the file abs and each directory between root and it.
func (r *ignoreRules) skipPath(abs string) bool {
	rel, err := filepath.Rel(r.root, abs)
	if err != nil || rel == "." {
		return false
	}
	cur := r.root
	parts := strings.Split(rel, string(filepath.Separator))
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		if r.skip(cur, i < len(parts)-1) {
			return true
		}
	}
	return false
}

// walkTree calls fn for every entry below root that rules do not skip, from
// parallel goroutines in no particular order, so fn must be safe for
// concurrent use. Symlinks are reported, not followed. maxDepth > 0 limits
// the depth (1: root's own entries). Unreadable directories are passed over.
func walkTree(ctx context.Context, root string, rules *ignoreRules, maxDepth int, fn func(abs string, d fs.DirEntry) error) error {
	conf := fastwalk.Config{MaxDepth: maxDepth}
	// fastwalk hands an error a callback returned back to the callback (as
	// err) on other entries; unreadable entries are skipped, so why the walk
	// stopped is remembered here rather than taken from err.
	var (
		mu   sync.Mutex
		stop error
	)
	halt := func(e error) error {
		mu.Lock()
		defer mu.Unlock()
		if stop == nil {
			stop = e
		}
		return e
	}
	err := fastwalk.Walk(&conf, root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return halt(err)
		}
		if rules.skip(path, d.IsDir()) {
			if d.IsDir() {
				return fastwalk.SkipDir
			}
			return nil
		}
		if err := fn(path, d); err != nil && err != fastwalk.SkipDir {
			return halt(err)
		} else if err != nil {
			return err
		}
		return nil
	})
	if stop != nil {
		return stop
	}
	return err
}
