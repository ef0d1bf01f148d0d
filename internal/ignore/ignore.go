// Package ignore holds the mechanics of .gitignore matching shared by the
// file tools and undo's workspace scanner: reading pattern files, a
// per-directory cache, git's last-match rule, and coder's own state, which
// nothing may list, search or capture. Which files count is each caller's
// policy.
package ignore

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ReadPatterns parses the ignore file dir/name (e.g. ".gitignore" or
// ".git/info/exclude"); a missing or unreadable file has no patterns.
func ReadPatterns(dir, name string) []gitignore.Pattern {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil
	}
	domain := SplitPath(dir)
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

// LastMatch is the verdict of the last pattern that matches path.
func LastMatch(ps []gitignore.Pattern, path []string, isDir bool) gitignore.MatchResult {
	for i := len(ps) - 1; i >= 0; i-- {
		if m := ps[i].Match(path, isDir); m != gitignore.NoMatch {
			return m
		}
	}
	return gitignore.NoMatch
}

// SplitPath turns an absolute path into its components.
func SplitPath(abs string) []string {
	abs = strings.Trim(filepath.ToSlash(abs), "/")
	if abs == "" {
		return nil
	}
	return strings.Split(abs, "/")
}

// Exists reports whether p exists (a dangling link counts).
func Exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// IsCoderState reports coder's own session state (.coder/sessions/ and the
// .coder/coder.db files). A search that found the model's past transcripts
// would feed them back to it, and undo must never capture or restore it.
// User-written files in .coder/ stay visible.
func IsCoderState(abs string) bool {
	if filepath.Base(filepath.Dir(abs)) != ".coder" {
		return false
	}
	base := filepath.Base(abs)
	return base == "sessions" || strings.HasPrefix(base, "coder.db")
}

// DirCache reads each directory's .gitignore once, safely for concurrent
// walkers. The zero value is ready to use.
type DirCache struct {
	mu   sync.Mutex
	dirs map[string]*dirPatterns
}

type dirPatterns struct {
	once sync.Once
	ps   []gitignore.Pattern
}

// Load returns dir's .gitignore patterns.
func (c *DirCache) Load(dir string) []gitignore.Pattern {
	c.mu.Lock()
	if c.dirs == nil {
		c.dirs = map[string]*dirPatterns{}
	}
	dp, ok := c.dirs[dir]
	if !ok {
		dp = &dirPatterns{}
		c.dirs[dir] = dp
	}
	c.mu.Unlock()
	dp.once.Do(func() { dp.ps = ReadPatterns(dir, ".gitignore") })
	return dp.ps
}
