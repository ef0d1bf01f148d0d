// Command coder is a terminal AI coding agent. All logic lives in internal/app.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/coder-agent/coder/internal/app"
	// The sandbox helper: a re-executed copy of coder that applies the
	// OS sandbox and then runs the command, ending everything it started
	// when it ends or coder dies. It runs from the package's init, before
	// the rest of coder initialises, and never returns.
	_ "github.com/coder-agent/coder/internal/sandbox/helper"
	// An editor's terminal running a bash call of coder's: the command in
	// coder's sandbox, from the package's init, before SQLite, Markdown
	// and HTTP initialise; it never returns either.
	_ "github.com/coder-agent/coder/internal/sandbox/terminal"
	// `coder sandbox`: the command in the workspace's sandbox, from the
	// package's init, before Markdown, JSON Schema and HTTP initialise
	// (unless the start mode needs the agents' catalog).
	_ "github.com/coder-agent/coder/internal/sandbox/workspace"
)

func main() {
	// Ctrl+C / SIGTERM cancel the run's context; the run flushes its session
	// and the process exits with the cancelled code.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Run(ctx, os.Args[1:], app.IO{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTTY: isTerminal(os.Stdin), OutTTY: isTerminal(os.Stdout),
		InFile: os.Stdin, OutFile: os.Stdout,
	}, os.LookupEnv)
	stop()
	os.Exit(code)
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
