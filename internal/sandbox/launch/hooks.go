package launch

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/hooks"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/secrets"
	"github.com/coder-agent/coder/internal/tools"
)

// Hooks are the person's own programs (their config, or a project they
// trusted), so they run as the person: outside the sandbox, with the
// person's environment, in the workspace. What keeps a model from writing
// a hook for itself is trust in the files that hold them, not where they
// run. Two things still hold wherever a hook runs: coder does not hand it
// its provider key, and a hook ends, with everything it started, at its
// timeout, when the hook itself ends, or when coder dies.
//
// The second rests on sandbox's containment at FullAccess: a re-executed
// coder, a child subreaper, supervises the hook's shell, so whatever the
// hook double-forks or moves to a session of its own (setsid) is
// reparented to it and killed. The limit, stated in the README: the hook
// runs as the person, unconfined, so it can kill its supervisor first, or
// have a service that is not its child (systemd --user, at, a D-Bus
// activated program) start something; neither is an accident a hook makes.

// HookLauncher runs hooks outside the sandbox (hooks.Launcher).
type HookLauncher struct {
	workspace string
	env       []string
}

// NewHookLauncher runs hooks in workspace with environ less the variables
// that hold one of creds (the provider key, provider header values).
func NewHookLauncher(workspace string, environ, creds []string) *HookLauncher {
	return &HookLauncher{workspace: workspace, env: hookEnv(environ, workspace, creds)}
}

// hookEnv is a hook's environment: environ without the variables holding
// a credential of coder's (by value, whatever the variable's name: the key
// may come from OPENAI_API_KEY, CODER_API_KEY or api_key_env), with the
// workspace as CODER_PROJECT_DIR and as Claude Code's CLAUDE_PROJECT_DIR
// so its hook scripts find the project. The person's other variables,
// their own tokens included, are theirs and pass.
func hookEnv(environ []string, workspace string, creds []string) []string {
	out := make([]string, 0, len(environ)+2)
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if name == "CODER_PROJECT_DIR" || name == "CLAUDE_PROJECT_DIR" || holdsCredential(value, creds) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "CODER_PROJECT_DIR="+workspace, "CLAUDE_PROJECT_DIR="+workspace)
}

// holdsCredential: value is one of creds, or holds one long enough not to
// turn up by chance (a header value "Bearer KEY").
func holdsCredential(value string, creds []string) bool {
	if value != "" && slices.Contains(creds, value) {
		return true
	}
	return secrets.Holds(value, creds)
}

// RunHook implements hooks.Launcher.
func (h *HookLauncher) RunHook(ctx context.Context, command string, stdin []byte, stdout, stderr io.Writer) (int, error) {
	// FullAccess: no confinement, only the containment described above.
	cmd, err := sandbox.Command(context.Background(), sandbox.Profile{Workspace: h.workspace, Policy: sandbox.FullAccess},
		hookArgv(command))
	if err != nil {
		return -1, err
	}
	// Set on the Cmd, past the sandbox's own environment, which drops
	// every secret-named variable so a confined command cannot read them:
	// a hook is the person's, and their GITHUB_TOKEN is theirs to use. The
	// supervisor passes its environment on to the hook.
	cmd.Env = h.env
	return runHookProcess(ctx, cmd, stdin, stdout, stderr)
}

// RunHook implements hooks.Launcher for a hook that asked for the sandbox
// (hooks.sandbox): the build-mode sandbox of the model's commands, with the
// session's temp dir, under the same guard of the protected paths.
func (l *Launcher) RunHook(ctx context.Context, command string, stdin []byte, stdout, stderr io.Writer) (int, error) {
	ws := l.loaded.Config.Runtime.WorkspaceRoot
	r, err := l.Begin(sandbox.WorkspaceWrite, hookEnv(os.Environ(), ws, nil))
	if err != nil {
		return -1, err
	}
	defer r.End()
	cmd, err := sandbox.Command(context.Background(), r.Profile, hookArgv(command))
	if err != nil {
		return -1, err
	}
	return runHookProcess(ctx, cmd, stdin, stdout, stderr)
}

// hookArgv is a hook's command line: /bin/sh -c, as Claude Code runs
// hooks; on Windows, which has no /bin/sh, the shell of bash calls (Git's
// bash, else PowerShell).
func hookArgv(command string) []string {
	if runtime.GOOS == "windows" {
		return tools.ShellArgv(command)
	}
	return []string{"/bin/sh", "-c", command}
}

// runHookProcess starts a contained hook and waits for it. Not tied to
// ctx when started: when ctx ends (the hook's timeout, a cancelled turn)
// Stop ends the hook and everything it started, then it returns.
func runHookProcess(ctx context.Context, cmd *exec.Cmd, stdin []byte, stdout, stderr io.Writer) (int, error) {
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	proc, err := sandbox.Start(cmd)
	if err != nil {
		return -1, err
	}
	select {
	case <-proc.Done():
	case <-ctx.Done():
		proc.Stop()
	}
	return proc.ExitCode(), nil
}

var (
	_ hooks.Launcher = (*HookLauncher)(nil)
	_ hooks.Launcher = (*Launcher)(nil)
)
