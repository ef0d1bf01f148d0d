//go:build unix

package sandbox

import (
	"io/fs"
	"path/filepath"

	"github.com/coder-agent/coder/internal/control"
	"github.com/coder-agent/coder/internal/paths"
)

// scanPlace is one tree to scan, what its top is, and the patterns of
// the files to mask in it.
type scanPlace struct {
	path     string
	place    control.Place
	patterns []string
}

// scanRoots are the workspace (with the deny_read patterns) and the git
// directories outside it that commands may write, without one inside
// another.
func (p Profile) scanRoots() []scanPlace {
	out := []scanPlace{{p.Workspace, control.Tree, p.DenyReadPatterns}}
	for _, d := range p.GitDirs {
		d = filepath.Clean(d)
		inside := false
		for _, o := range p.GitDirs {
			o = filepath.Clean(o)
			if o != d && paths.Within(o, d) {
				inside = true
			}
		}
		if !inside && !paths.Within(p.Workspace, d) {
			out = append(out, scanPlace{d, control.GitDir, nil})
		}
	}
	return out
}

// Coverage scans p's trees for what the mounts protect.
func (p Profile) Coverage() (Coverage, error) {
	var trees []tree
	for _, r := range p.scanRoots() {
		t, err := scanRoot(r.path, r.place, r.patterns)
		if err != nil {
			return Coverage{}, err
		}
		trees = append(trees, t)
	}
	return coverageOf(trees), nil
}

// coverageOf sorts what scans found into what the mounts do.
func coverageOf(trees []tree) Coverage {
	var c Coverage
	for _, t := range trees {
		c.Dirs += t.dirs
		for _, e := range t.control {
			abs := filepath.Join(t.root, filepath.FromSlash(e.rel))
			switch {
			case e.typ == fs.ModeSymlink:
				c.Unbound = append(c.Unbound, abs)
			case e.typ == fs.ModeDir && filepath.Base(abs) == control.GitName && e.place == control.Tree:
				c.Pinned = append(c.Pinned, abs)
			default:
				c.ReadOnly = append(c.ReadOnly, abs)
			}
		}
		for _, e := range t.secrets {
			c.Masked = append(c.Masked, filepath.Join(t.root, filepath.FromSlash(e.rel)))
		}
	}
	return c
}
