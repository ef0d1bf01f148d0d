package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/coder-agent/coder/internal/paths"
)

// Workspace is the directory the agent works in; paths that resolve outside it
// need a person's approval: the workspace is a boundary.
type Workspace struct {
	// Root is absolute, cleaned and free of symlinks.
	Root string
	// root opens, writes, renames and removes paths below Root so that no
	// symlink or rename race can make them land outside (see beneath.go);
	// dirFd is the same directory for openat2 (-1 when unavailable).
	root  *os.Root
	dirFd int
}

// NewWorkspace resolves root (relative to the current directory, symlinks
// followed) and checks that it is an existing directory.
func NewWorkspace(root string) (*Workspace, error) {
	abs, err := filepath.Abs(expandHome(root))
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace root %q is not a directory", root)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workspace root %q: %w", root, err)
	}
	return &Workspace{Root: real, root: r, dirFd: openDirFd(real)}, nil
}

// maxLinkHops bounds symlink chains, like the kernel's ELOOP limit.
const maxLinkHops = 40

// Resolve turns a path from a tool call into an absolute, cleaned path with
// symlinks followed. Relative paths are relative to Root and a leading ~ is
// the home directory. The longest existing prefix is resolved, so a file that
// does not exist yet under a symlinked directory — or a dangling symlink — is
// judged by where it would really land. inside reports whether that place is
// Root or below it.
func (w *Workspace) Resolve(p string) (abs string, inside bool, err error) {
	if strings.TrimSpace(p) == "" {
		return "", false, errors.New("empty path")
	}
	p = expandHome(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Root, p)
	}
	abs, err = resolveLinks(filepath.Clean(p), 0)
	if err != nil {
		return "", false, err
	}
	return abs, w.contains(abs), nil
}

// Rel is abs as people and models read it: relative to Root when inside
// ("." for Root itself), absolute otherwise.
func (w *Workspace) Rel(abs string) string {
	if !w.contains(abs) {
		return abs
	}
	rel, err := filepath.Rel(w.Root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

func (w *Workspace) contains(abs string) bool {
	return paths.Within(w.Root, abs)
}

// resolveLinks follows symlinks in p (absolute and clean). Components that do
// not exist are kept as they are; a dangling symlink is followed to its target.
func resolveLinks(p string, hops int) (string, error) {
	if hops > maxLinkHops {
		return "", fmt.Errorf("%s: too many levels of symbolic links", p)
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real, nil
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	realParent, err := resolveLinks(parent, hops)
	if err != nil {
		return "", err
	}
	joined := filepath.Join(realParent, filepath.Base(p))
	fi, err := os.Lstat(joined)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return joined, nil
	}
	target, err := os.Readlink(joined)
	if err != nil {
		return joined, nil
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(realParent, target)
	}
	return resolveLinks(filepath.Clean(target), hops+1)
}

func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, p[1:])
}

// target is a path argument resolved for a file tool.
type target struct {
	Abs    string
	Rel    string
	Inside bool
}

// resolveArg resolves a path argument for Run. The Result is non-nil when the
// call must fail: an unusable path, or an unapproved path outside the workspace.
func (w *Workspace) resolveArg(p string, outsideApproved bool) (target, *Result) {
	abs, inside, err := w.Resolve(p)
	if err != nil {
		r := Failure("invalid path %q: %v", p, err)
		return target{}, &r
	}
	if !inside && !outsideApproved {
		r := Failure("path is outside the workspace: %s (workspace: %s)", abs, w.Root)
		return target{}, &r
	}
	return target{Abs: abs, Rel: w.Rel(abs), Inside: inside}, nil
}
