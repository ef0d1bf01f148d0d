package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// GitWorktree finds the git directories of a linked worktree (whose .git
// is a file "gitdir: …" pointing into the main repository), so git add and
// git commit can work in the sandbox: the worktree's own git dir and the
// common one become writable, their config and hooks protected. It returns
// nothing for an ordinary repository, or when the pointer does not lead
// back to this workspace: .git is a file the model can write, and it must
// not be able to name a directory to make writable.
func GitWorktree(workspace string) (writable, protected []string) {
	b, err := os.ReadFile(filepath.Join(workspace, ".git"))
	if err != nil {
		return nil, nil // a directory, or no repository
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return nil, nil
	}
	gitdir := absFrom(workspace, strings.TrimSpace(rest))
	back, err := os.ReadFile(filepath.Join(gitdir, "gitdir"))
	if err != nil || resolved(absFrom(gitdir, strings.TrimSpace(string(back)))) != resolved(filepath.Join(workspace, ".git")) {
		return nil, nil
	}
	common := gitdir
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common = absFrom(gitdir, strings.TrimSpace(string(c)))
	}
	if resolved(filepath.Dir(gitdir)) != resolved(filepath.Join(common, "worktrees")) {
		return nil, nil
	}
	writable = []string{gitdir, common}
	protected = []string{filepath.Join(common, "config"), filepath.Join(common, "hooks"),
		filepath.Join(gitdir, "config.worktree")}
	return writable, protected
}

func absFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}
