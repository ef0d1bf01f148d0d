package app

import (
	"context"

	"github.com/coder-agent/coder/internal/agent/mode"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/sandbox/workspace"
)

// runSubcommand runs `coder sandbox` and `coder doctor`; ok is false for
// anything else. `coder sandbox` usually answers from its package's init
// (sandbox/workspace); it comes here when the start mode needs the agents'
// catalog.
func runSubcommand(ctx context.Context, args []string, stdio IO, env func(string) (string, bool)) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case "sandbox":
		return workspace.Command(ctx, args[1:], workspace.Stdio{In: stdio.In, Out: stdio.Out, Err: stdio.Err}, env, startMode), true
	case "doctor":
		return runDoctor(args[1:], stdio, env), true
	}
	return 0, false
}

// startMode is the mode the REPL would start in (startAgent:
// agents.default, or a preset named plan or build), which coder sandbox
// and doctor judge by.
func startMode(l *config.Loaded) (mode.Mode, error) {
	_, ag, err := startAgent(l.Config)
	if err != nil {
		return "", err
	}
	return ag.Mode, nil
}
