package launch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/coder-agent/coder/internal/sandbox"
)

// TerminalArg is the hidden first argument of what coder asks an editor's
// terminal to run: `coder __sandbox-terminal PROFILE -- COMMAND...` starts
// COMMAND in exactly the sandbox a bash call of the session gets (PROFILE
// is its JSON: paths and switches, never an environment or a secret), so
// the kernel's confinement holds whoever starts the process.
const TerminalArg = "__sandbox-terminal"

// TerminalCommand is the program, arguments and environment an editor's
// terminal runs to start argv in sandbox p (RunTerminal, in coder's own
// executable). The command's environment goes as the terminal's, which the
// sandbox filters again (secret-named variables never enter it).
func TerminalCommand(p sandbox.Profile, argv []string) (exe string, args, env []string, err error) {
	exe, err = os.Executable()
	if err != nil {
		return "", nil, nil, fmt.Errorf("finding coder's executable: %w", err)
	}
	env = p.Env
	p.Env, p.Secrets = nil, nil
	spec, err := json.Marshal(p)
	if err != nil {
		return "", nil, nil, err
	}
	return exe, append([]string{TerminalArg, string(spec), "--"}, argv...), env, nil
}

// RunTerminal is `coder __sandbox-terminal PROFILE -- COMMAND...` (args
// after TerminalArg), run by an editor's terminal: COMMAND in the sandbox
// PROFILE describes, its output on stdout and stderr, its exit code
// returned. Stdin stays closed, as for a bash call. err is the sandbox's
// own failure.
func RunTerminal(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) < 3 || args[1] != "--" {
		return 0, errors.New("usage: coder " + TerminalArg + " PROFILE -- COMMAND [ARGS...]")
	}
	var p sandbox.Profile
	if err := json.Unmarshal([]byte(args[0]), &p); err != nil {
		return 0, fmt.Errorf("bad profile: %w", err)
	}
	p.Env, p.Secrets = nil, nil // this process's environment, filtered by the sandbox
	cmd, err := sandbox.Command(ctx, p, args[2:])
	if err != nil {
		return 0, err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	proc, err := sandbox.Start(cmd)
	if err != nil {
		return 0, err
	}
	_ = proc.Wait()
	return proc.ExitCode(), nil
}
