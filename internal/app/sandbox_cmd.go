package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/sandbox/helper"
	"github.com/coder-agent/coder/internal/sandbox/launch"
)

// ExitSandboxFailed is `coder sandbox`'s own failure (bad flags or config,
// no sandbox set up), as env and docker run use it; any other code is the
// command's: the helper's own (helper.Failed).
const ExitSandboxFailed = helper.Failed

// runSubcommand runs `coder sandbox` and `coder doctor`; ok is false for
// anything else.
func runSubcommand(ctx context.Context, args []string, stdio IO, env func(string) (string, bool)) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case "sandbox":
		return runSandbox(ctx, args[1:], stdio, env), true
	case "doctor":
		return runDoctor(args[1:], stdio, env), true
	}
	return 0, false
}

const sandboxUsage = `Usage: coder sandbox [--mode build|plan] [--cwd DIR] [--trust] -- COMMAND [ARGS...]

Runs COMMAND under exactly the sandbox coder uses for the model's commands in
this workspace (config applied) and exits with its code; 125 when coder
itself fails. coder doctor shows what the sandbox allows here.
`

// sandboxSubject is what `coder sandbox` and `coder doctor` are about: the
// loaded configuration and the mode.
type sandboxSubject struct {
	loaded *config.Loaded
	mode   agent.Mode
}

func loadSandboxSubject(name string, args []string, env func(string) (string, bool)) (sandboxSubject, []string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mode := fs.String("mode", "", "")
	cwd := fs.String("cwd", "", "")
	trust := fs.Bool("trust", false, "")
	if err := fs.Parse(args); err != nil {
		return sandboxSubject{}, nil, err
	}
	if _, err := agent.ParseMode(*mode); err != nil {
		return sandboxSubject{}, nil, fmt.Errorf("--mode must be build or plan, got %q", *mode)
	}
	loaded, err := config.Load(config.Options{Env: env, Flags: config.Overrides{Cwd: *cwd, Trust: *trust}})
	if err != nil {
		return sandboxSubject{}, nil, err
	}
	m, err := subjectMode(loaded, *mode)
	if err != nil {
		return sandboxSubject{}, nil, err
	}
	return sandboxSubject{loaded: loaded, mode: m}, fs.Args(), nil
}

// subjectMode is --mode, else the mode the REPL would start in
// (startAgent: agents.default, or a preset named plan or build).
func subjectMode(l *config.Loaded, flagMode string) (agent.Mode, error) {
	if flagMode != "" {
		return agent.ParseMode(flagMode)
	}
	_, ag, err := startAgent(l.Config)
	if err != nil {
		return "", err
	}
	return ag.Mode, nil
}

// runSandbox is `coder sandbox`.
func runSandbox(ctx context.Context, args []string, stdio IO, env func(string) (string, bool)) int {
	fail := func(err error) int {
		fmt.Fprintln(stdio.Err, "coder sandbox: "+err.Error())
		return ExitSandboxFailed
	}
	subj, argv, err := loadSandboxSubject("sandbox", args, env)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdio.Out, sandboxUsage)
		return ExitOK
	}
	if err != nil {
		return fail(err)
	}
	if len(argv) == 0 {
		return fail(errors.New("no command (usage: coder sandbox [--mode build|plan] -- COMMAND [ARGS...])"))
	}
	code, err := launch.RunOnce(ctx, subj.loaded, subj.mode.Access(), subj.loaded.Cwd, argv,
		launch.Stdio{In: stdio.In, Out: stdio.Out, Err: stdio.Err})
	if err != nil {
		return fail(err)
	}
	return code
}
