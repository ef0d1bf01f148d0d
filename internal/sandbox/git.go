package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// GitWorktree finds the git directories of a linked worktree (whose .git
// is a file "gitdir: …" pointing into the main repository), so git add and
// git commit can work in the sandbox: the worktree's own git dir and the
// common one become writable (Profile.WritableRoots), their control
// entries protected as the workspace's own (Profile.GitDirs). It returns
// nothing for an ordinary repository, or when the pointer does not lead
// back to this workspace: .git is a file the model could have written, and
// it must not be able to name a directory to make writable.
func GitWorktree(workspace string) []string {
	b, err := os.ReadFile(filepath.Join(workspace, ".git"))
	if err != nil {
		return nil // a directory, or no repository
	}
	rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return nil
	}
	gitdir := absFrom(workspace, strings.TrimSpace(rest))
	back, err := os.ReadFile(filepath.Join(gitdir, "gitdir"))
	if err != nil || resolved(absFrom(gitdir, strings.TrimSpace(string(back)))) != resolved(filepath.Join(workspace, ".git")) {
		return nil
	}
	common := gitdir
	if c, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common = absFrom(gitdir, strings.TrimSpace(string(c)))
	}
	if resolved(filepath.Dir(gitdir)) != resolved(filepath.Join(common, "worktrees")) {
		return nil
	}
	return []string{gitdir, common}
}

func absFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}
