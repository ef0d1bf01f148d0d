package undo

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/coder-agent/coder/internal/gitcmd"
)

// GitDiff is /diff in a git work tree: the changes of the workspace against
// HEAD (against the index before the first commit), as `git diff --stat`
// for the summary, followed by the untracked files, and `git diff` for the
// diff. Paths are relative to workspace, and only what lies below it counts.
// ok is false when git is missing or workspace is not in a work tree; the
// caller then uses SessionDiff.
func GitDiff(ctx context.Context, workspace string) (summary, diff string, ok bool, err error) {
	if _, err := exec.LookPath("git"); err != nil {
		return "", "", false, nil
	}
	if out, err := runGit(ctx, workspace, "rev-parse", "--is-inside-work-tree"); err != nil || strings.TrimSpace(out) != "true" {
		return "", "", false, nil
	}
	args := []string{"diff", "--no-color", "--relative"}
	if _, err := runGit(ctx, workspace, "rev-parse", "--verify", "--quiet", "HEAD"); err == nil {
		args = append(args, "HEAD")
	}
	stat, err := runGit(ctx, workspace, append(args, "--stat")...)
	if err != nil {
		return "", "", true, err
	}
	diff, err = runGit(ctx, workspace, args...)
	if err != nil {
		return "", "", true, err
	}
	untracked, err := runGit(ctx, workspace, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return "", "", true, err
	}
	return gitSummary(stat, untracked), diff, true, nil
}

// gitSummary joins the --stat output and the NUL-separated untracked paths.
func gitSummary(stat, untracked string) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(stat, "\n"))
	if paths := strings.Split(strings.TrimRight(untracked, "\x00"), "\x00"); paths[0] != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "untracked: %s", strings.Join(paths, ", "))
	}
	if b.Len() == 0 {
		return "no changes"
	}
	return b.String()
}

// runGit runs git in dir and returns its stdout: through gitcmd, so no
// program the repository's configuration names runs.
func runGit(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := gitcmd.Output(ctx, dir, nil, args...)
	if err != nil && ctx.Err() == nil {
		return "", fmt.Errorf("undo: %w", err)
	}
	return out, err
}
