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
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/secrets"
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
var driverKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(filter\..+\.(clean|smudge|process)|diff\..+\.textconv|merge\..+\.driver)$`)
})

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
//
// The overrides go in the environment (GIT_CONFIG_COUNT, git 2.31+), which
// keeps each key apart from its value: `-c key=value` splits at the first
// "=", so a driver named "x=y" (`[filter "x=y"]`, `filter=x=y` in
// .gitattributes) could not be switched off there. An older git, which
// ignores those variables, gets -c, and is not run at all for a
// repository that names such a driver.
func Command(ctx context.Context, dir string, secrets []string, args ...string) (*exec.Cmd, error) {
	if len(args) == 0 {
		return nil, errors.New("gitcmd: no git command")
	}
	safe, ok := subcommands[args[0]]
	if !ok {
		return nil, fmt.Errorf("gitcmd: git %s is not one of coder's own read-only git commands", args[0])
	}
	// Without a driver to switch off, the fixed settings go as -c (their
	// keys hold no "="), which every git reads: no listing, no version
	// check, one process fewer for every summary.
	var overrides []setting
	envConfig := false
	if !driverFree(dir) {
		var err error
		overrides, envConfig, err = repoOverrides(ctx, dir, secrets)
		if err != nil {
			return nil, err
		}
	}
	settings := append(fixedSettings(), overrides...)
	pre := []string{"--no-pager"}
	environ := env(secrets)
	if envConfig {
		environ = withConfig(environ, settings)
	} else {
		for _, st := range settings {
			if strings.Contains(st.key, "=") {
				return nil, fmt.Errorf("gitcmd: the repository's configuration names a driver (%s) this git (older than 2.31) cannot be told to skip; not running git", st.key)
			}
			pre = append(pre, "-c", st.key+"="+st.value)
		}
	}
	args = append(append([]string{args[0]}, safe...), args[1:]...)
	cmd := exec.CommandContext(ctx, "git", append(pre, args...)...)
	cmd.Dir = dir
	cmd.Env = environ
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

// setting is one configuration override.
type setting struct{ key, value string }

func fixedSettings() []setting {
	out := make([]setting, len(fixed))
	for i, f := range fixed {
		k, v, _ := strings.Cut(f, "=")
		out[i] = setting{k, v}
	}
	return out
}

// probeKey is set through the environment when the configuration is read:
// seen back, it says this git takes GIT_CONFIG_COUNT.
const probeKey = "coder.probe"

// repoOverrides empties every driver command the repository's local and
// worktree configuration defines (includes followed), and says whether
// this git reads configuration from the environment. Reading the
// configuration runs nothing.
func repoOverrides(ctx context.Context, dir string, secrets []string) (overrides []setting, envConfig bool, err error) {
	cmd := exec.CommandContext(ctx, "git", "config", "--list", "--includes", "--show-scope", "-z")
	cmd.Dir, cmd.Env = dir, withConfig(env(secrets), []setting{{probeKey, "1"}})
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, err
	}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("git: %w", err)
	}
	data, _ := io.ReadAll(io.LimitReader(out, maxConfig+1))
	_ = cmd.Wait() // outside a repository git config fails: nothing to neutralise
	if len(data) > maxConfig {
		return nil, false, errors.New("git: the repository's configuration is larger than 1 MiB; not running git")
	}
	// Each entry is "scope\x00key\nvalue\x00".
	fields := bytes.Split(data, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		scope := string(fields[i])
		key, _, _ := strings.Cut(string(fields[i+1]), "\n")
		switch {
		case scope == "command" && key == probeKey:
			envConfig = true
		case (scope == "local" || scope == "worktree") && driverKey().MatchString(strings.ToLower(key)):
			overrides = append(overrides, setting{key, ""})
		}
	}
	return overrides, envConfig, nil
}

// withConfig adds settings to environ as GIT_CONFIG_KEY_n/VALUE_n after
// any the person's environment already holds, which they then win over.
func withConfig(environ []string, settings []setting) []string {
	n := 0
	for i, kv := range environ {
		if c, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			n, _ = strconv.Atoi(c)
			environ = slices.Delete(slices.Clone(environ), i, i+1)
			break
		}
	}
	for i, st := range settings {
		environ = append(environ, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n+i, st.key), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+i, st.value))
	}
	return append(environ, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+len(settings)))
}

// env is coder's environment for git: no value holding a secret, optional
// locks off (a summary must not take the index lock from the person's own
// git), messages in English for parsing.
func env(secretValues []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		_, v, _ := strings.Cut(kv, "=")
		if !secrets.Holds(v, secretValues) {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C", "GIT_TERMINAL_PROMPT=0")
}
