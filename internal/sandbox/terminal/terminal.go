// Package terminal is what an editor's terminal runs for a bash call of
// coder's: `coder __sandbox-terminal PROFILE -- COMMAND...` starts COMMAND
// in exactly the sandbox a bash call of the session gets (PROFILE is its
// JSON: paths and switches, never an environment or a secret), so the
// kernel's confinement holds whoever starts the process.
//
// Every such call starts coder, so it runs from this package's init and
// exits there: Go initialises a package after those it imports and, among
// the ready ones, in import-path order, and this one imports only packages
// sandbox, sandbox/helper and standard ones, so it runs before SQLite's,
// Markdown's, JSON Schema's and HTTP's tables are built (cmd/coder's
// startup test checks which).
package terminal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/coder-agent/coder/internal/dirwatch"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// Arg is the hidden first argument of what coder asks an editor's terminal
// to run.
const Arg = "__sandbox-terminal"

// Command is the program, arguments and environment an editor's terminal
// runs to start argv in sandbox p (Run, in coder's own executable). The
// command's environment goes as the terminal's, which the sandbox filters
// again (secret-named variables never enter it).
func Command(p sandbox.Profile, argv []string) (exe string, args, env []string, err error) {
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
	return exe, append([]string{Arg, string(spec), "--"}, argv...), env, nil
}

// Run is `coder __sandbox-terminal PROFILE -- COMMAND...` (args after Arg):
// COMMAND in the sandbox PROFILE describes, its output on stdout and
// stderr, its exit code returned. Stdin stays closed, as for a bash call.
// err is the sandbox's own failure.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) < 3 || args[1] != "--" {
		return 0, errors.New("usage: coder " + Arg + " PROFILE -- COMMAND [ARGS...]")
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

func init() {
	if len(os.Args) < 2 || os.Args[1] != Arg {
		return
	}
	// Ctrl+C, the editor's kill or its terminal closing ends the sandbox
	// and all in it, as coder's main does for its own runs.
	ctx, stop := signal.NotifyContext(context.Background(), sandbox.EndSignals...)
	dirwatch.Disable() // one command, one scan: see there
	code, err := Run(ctx, os.Args[2:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		// As the helper says its own failure, and `coder sandbox` its.
		fmt.Fprintln(os.Stderr, helper.Prefix+err.Error())
		code = helper.Failed
	}
	os.Exit(code)
}
