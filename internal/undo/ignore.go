package undo

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreRules decides which workspace entries a Scanner leaves out: entries
// named .git, coder's own session state, and what .gitignore files exclude —
// those at every level below the root (deeper ones win, as in git), those
// above it up to the enclosing repository's top, and .git/info/exclude. It
// mirrors the rules of the file tools (internal/tools), which are unexported.
type ignoreRules struct {
	root    string
	outside []gitignore.Pattern // from above the root and info/exclude

	mu   sync.Mutex
	dirs map[string]*dirPatterns
}

type dirPatterns struct {
	once sync.Once
	ps   []gitignore.Pattern
}

func newIgnoreRules(root string) *ignoreRules {
	r := &ignoreRules{root: root, dirs: map[string]*dirPatterns{}}
	top := root
	var above []string
	for d := root; !exists(filepath.Join(d, ".git")); {
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
		r.outside = append(r.outside, readPatterns(above[i], ".gitignore")...)
	}
	r.outside = append(r.outside, readPatterns(top, filepath.Join(".git", "info", "exclude"))...)
	// A workspace the repository ignores (a scratch directory) is still
	// scanned: the rules from outside then do not apply at all.
	path := splitPath(root)
	for i := len(splitPath(top)) + 1; i <= len(path); i++ {
		if lastMatch(r.outside, path[:i], true) == gitignore.Exclude {
			r.outside = nil
			break
		}
	}
	return r
}

// skip reports whether the entry at abs is left out. Its parent directories
// are assumed to have passed, as in a walk.
func (r *ignoreRules) skip(abs string, isDir bool) bool {
	if filepath.Base(abs) == ".git" || isCoderState(abs) {
		return true
	}
	var path []string // split only when some patterns apply: most dirs have none
	for dir := filepath.Dir(abs); len(dir) >= len(r.root); dir = filepath.Dir(dir) {
		if ps := r.load(dir); len(ps) > 0 {
			if path == nil {
				path = splitPath(abs)
			}
			if m := lastMatch(ps, path, isDir); m != gitignore.NoMatch {
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
		path = splitPath(abs)
	}
	return lastMatch(r.outside, path, isDir) == gitignore.Exclude
}

func (r *ignoreRules) load(dir string) []gitignore.Pattern {
	r.mu.Lock()
	dp, ok := r.dirs[dir]
	if !ok {
		dp = &dirPatterns{}
		r.dirs[dir] = dp
	}
	r.mu.Unlock()
	dp.once.Do(func() { dp.ps = readPatterns(dir, ".gitignore") })
	return dp.ps
}

// readPatterns parses the ignore file dir/name; a missing one has none.
func readPatterns(dir, name string) []gitignore.Pattern {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil
	}
	domain := splitPath(dir)
	var ps []gitignore.Pattern
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// lastMatch is the verdict of the last pattern that matches path.
func lastMatch(ps []gitignore.Pattern, path []string, isDir bool) gitignore.MatchResult {
	for i := len(ps) - 1; i >= 0; i-- {
		if m := ps[i].Match(path, isDir); m != gitignore.NoMatch {
			return m
		}
	}
	return gitignore.NoMatch
}

func splitPath(abs string) []string {
	abs = strings.Trim(filepath.ToSlash(abs), "/")
	if abs == "" {
		return nil
	}
	return strings.Split(abs, "/")
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// isCoderState reports coder's own session state (.coder/sessions and the
// .coder/coder.db files): it changes on every checkpoint and must never be
// captured, let alone restored.
func isCoderState(abs string) bool {
	if filepath.Base(filepath.Dir(abs)) != ".coder" {
		return false
	}
	base := filepath.Base(abs)
	return base == "sessions" || strings.HasPrefix(base, "coder.db")
}
