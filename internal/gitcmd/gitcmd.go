// Package gitcmd runs coder's own git commands (the workspace summary,
// /diff) so that no program the repository's configuration names can run.
// A model that writes .git/config — core.fsmonitor, a filter's clean
// command, a textconv — would otherwise have it run by coder itself, at
// every start, outside any sandbox. Every such setting of the repository's
// own scopes is overridden on the command line, where it wins.
//
// Nested repositories (submodules, or any gitlink a model adds) are never
// entered: their configuration is not the one read here, so git must not
// run in them at all. Every command that could look inside one gets
// --ignore-submodules=all, which wins over .gitmodules and config alike.
// Only the read-only commands listed in subcommands run.
package gitcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// fixed are overrides every call gets: git's own program settings that a
// read-only command could reach.
var fixed = []string{
	"core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat", "diff.external=",
	"core.sshCommand=false", "core.askPass=false", "credential.helper=", "gpg.program=false",
	"core.editor=false", "sequence.editor=false", "core.quotepath=off",
	"log.showSignature=false", "submodule.recurse=false", "diff.ignoreSubmodules=all",
	"status.submoduleSummary=false",
}

// driverKey matches the per-driver settings that name programs and that an
// empty value switches off. External diff drivers cannot be emptied (git
// would try to run ""): diff-like commands get --no-ext-diff instead.
var driverKey = regexp.MustCompile(`^(filter\..+\.(clean|smudge|process)|diff\..+\.textconv|merge\..+\.driver)$`)

// subcommands are the git commands coder runs, each with the options that
// keep it out of nested repositories and away from diff drivers. git
// 2.39's ls-files and rev-parse never enter a nested repository unless
// asked (--recurse-submodules), and run no driver.
var subcommands = map[string][]string{
	"status":    {"--ignore-submodules=all"},
	"diff":      {"--no-ext-diff", "--no-textconv", "--ignore-submodules=all"},
	"log":       {"--no-ext-diff", "--no-textconv", "--ignore-submodules=all"},
	"show":      {"--no-ext-diff", "--no-textconv", "--ignore-submodules=all"},
	"ls-files":  nil,
	"rev-parse": nil,
}

// maxConfig bounds what is read of the repository's configuration.
const maxConfig = 1 << 20

// Command returns git with args, run in dir, with every program-naming
// setting of the repository neutralised, without a pager, optional locks
// or secrets in its environment. secrets are values no variable passed on
// may hold (the API key).
func Command(ctx context.Context, dir string, secrets []string, args ...string) (*exec.Cmd, error) {
	if len(args) == 0 {
		return nil, errors.New("gitcmd: no git command")
	}
	safe, ok := subcommands[args[0]]
	if !ok {
		return nil, fmt.Errorf("gitcmd: git %s is not one of coder's own read-only git commands", args[0])
	}
	overrides, err := repoOverrides(ctx, dir, secrets)
	if err != nil {
		return nil, err
	}
	pre := []string{"--no-pager"}
	for _, o := range append(fixed, overrides...) {
		pre = append(pre, "-c", o)
	}
	args = append(append([]string{args[0]}, safe...), args[1:]...)
	cmd := exec.CommandContext(ctx, "git", append(pre, args...)...)
	cmd.Dir = dir
	cmd.Env = env(secrets)
	return cmd, nil
}

// Output runs Command and returns its stdout; a failure names the command
// and what git said.
func Output(ctx context.Context, dir string, secrets []string, args ...string) (string, error) {
	cmd, err := Command(ctx, dir, secrets, args...)
	if err != nil {
		return "", err
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
		}
		return "", fmt.Errorf("git: %w", err)
	}
	return stdout.String(), nil
}

// repoOverrides empties every driver command the repository's local and
// worktree configuration defines (includes followed). Reading the
// configuration runs nothing.
func repoOverrides(ctx context.Context, dir string, secrets []string) ([]string, error) {
	cmd := exec.CommandContext(ctx, "git", "config", "--list", "--includes", "--show-scope", "-z")
	cmd.Dir, cmd.Env = dir, env(secrets)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("git: %w", err)
	}
	data, _ := io.ReadAll(io.LimitReader(out, maxConfig+1))
	_ = cmd.Wait() // outside a repository git config fails: nothing to neutralise
	if len(data) > maxConfig {
		return nil, errors.New("git: the repository's configuration is larger than 1 MiB; not running git")
	}
	var overrides []string
	// Each entry is "scope\x00key\nvalue\x00".
	fields := bytes.Split(data, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		scope := string(fields[i])
		key, _, _ := strings.Cut(string(fields[i+1]), "\n")
		if (scope == "local" || scope == "worktree") && driverKey.MatchString(strings.ToLower(key)) {
			overrides = append(overrides, key+"=")
		}
	}
	return overrides, nil
}

// env is coder's environment for git: no value holding a secret, optional
// locks off (a summary must not take the index lock from the person's own
// git), messages in English for parsing.
func env(secrets []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		_, v, _ := strings.Cut(kv, "=")
		if !holdsSecret(v, secrets) {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
}

func holdsSecret(v string, secrets []string) bool {
	for _, s := range secrets {
		if len(s) >= 8 && strings.Contains(v, s) {
			return true
		}
	}
	return false
}
