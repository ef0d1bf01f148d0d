package workspace

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/coder-agent/coder/internal/agent/mode"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// ExitFailed is `coder sandbox`'s own failure (bad flags or config, no
// sandbox set up), as env and docker run use it; any other code is the
// command's: the helper's own (helper.Failed).
const ExitFailed = helper.Failed

// Usage is `coder sandbox -h`.
const Usage = `Usage: coder sandbox [--mode build|plan] [--cwd DIR] [--trust] -- COMMAND [ARGS...]

Runs COMMAND under exactly the sandbox coder uses for the model's commands in
this workspace (config applied) and exits with its code; 125 when coder
itself fails. coder doctor shows what the sandbox allows here.
`

// Subject is what `coder sandbox` and `coder doctor` are about: the loaded
// configuration and the mode.
type Subject struct {
	Loaded *config.Loaded
	Mode   mode.Mode
}

// StartMode is the mode a session in the workspace l loaded starts in.
type StartMode func(l *config.Loaded) (mode.Mode, error)

// errUndecided is BuiltinStartMode's answer when only the agents' catalog
// can tell.
var errUndecided = errors.New("the start mode needs the agents' catalog")

// LoadSubject parses name's flags (--mode, --cwd, --trust), loads the
// configuration, and takes --mode, else start's mode; it returns the
// arguments after the flags.
func LoadSubject(name string, args []string, env func(string) (string, bool), start StartMode) (Subject, []string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	flagMode := fs.String("mode", "", "")
	cwd := fs.String("cwd", "", "")
	trust := fs.Bool("trust", false, "")
	if err := fs.Parse(args); err != nil {
		return Subject{}, nil, err
	}
	m, err := mode.Parse(*flagMode)
	if err != nil {
		return Subject{}, nil, fmt.Errorf("--mode must be build or plan, got %q", *flagMode)
	}
	loaded, err := config.Load(config.Options{Env: env, Flags: config.Overrides{Cwd: *cwd, Trust: *trust}})
	if err != nil {
		return Subject{}, nil, err
	}
	if *flagMode == "" {
		if m, err = start(loaded); err != nil {
			return Subject{}, nil, err
		}
	}
	return Subject{Loaded: loaded, Mode: m}, fs.Args(), nil
}

// Command is `coder sandbox ARGS`, start telling the mode a session would
// start in.
func Command(ctx context.Context, args []string, stdio Stdio, env func(string) (string, bool), start StartMode) int {
	code, _ := command(ctx, args, stdio, env, start)
	return code
}

// command is Command; handled is false when start could not decide and
// nothing was done.
func command(ctx context.Context, args []string, stdio Stdio, env func(string) (string, bool), start StartMode) (code int, handled bool) {
	fail := func(err error) (int, bool) {
		fmt.Fprintln(stdio.Err, "coder sandbox: "+err.Error())
		return ExitFailed, true
	}
	subj, argv, err := LoadSubject("sandbox", args, env, start)
	switch {
	case errors.Is(err, errUndecided):
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdio.Out, Usage)
		return 0, true
	case err != nil:
		return fail(err)
	case len(argv) == 0:
		return fail(errors.New("no command (usage: coder sandbox [--mode build|plan] -- COMMAND [ARGS...])"))
	}
	code, err = RunOnce(ctx, subj.Loaded, subj.Mode.Access(), subj.Loaded.Cwd, argv, stdio)
	if err != nil {
		return fail(err)
	}
	return code, true
}

// BuiltinStartMode is the start mode without the agents' catalog, as
// `coder sandbox` takes it from its init (errUndecided when it cannot): when no
// agent is defined in the configuration, the agent a session starts with
// is a built-in one or unknown. Anything else is the catalog's to judge
// (app's start mode, with its errors), after coder has initialised.
func BuiltinStartMode(l *config.Loaded) (mode.Mode, error) {
	if len(l.Config.Agents.Definitions) > 0 {
		return "", errUndecided
	}
	m, ok := mode.Builtin(mode.StartAgent(l.Config.Agents.Default, l.Config.Permission.Preset))
	if !ok {
		return "", errUndecided
	}
	return m, nil
}

// `coder sandbox` runs from this package's init, before Markdown, JSON
// Schema, HTTP, the MCP SDK and the rest of coder initialise: it needs
// only the configuration and the sandbox. When the start mode needs the
// agents' catalog it leaves the command to main.
func init() {
	if len(os.Args) < 2 || os.Args[1] != "sandbox" {
		return
	}
	// The command runs on a goroutine of its own, not init's: init's is
	// locked to the main thread, so each time it blocked (the helper's
	// start, its exit code, the clean-up) the runtime handed the processor
	// to another thread and back. It exits the process from there.
	done := make(chan struct{})
	go func() {
		ctx, stop := signal.NotifyContext(context.Background(), sandbox.EndSignals...)
		code, handled := command(ctx, os.Args[2:], Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}, os.LookupEnv, BuiltinStartMode)
		if handled {
			// The exit ends the signals' watch: stop would unregister
			// them one round trip to the runtime's signal thread each.
			os.Exit(code)
		}
		stop()
		close(done)
	}()
	<-done
}
