// Package app is the composition root: it parses the command line, loads the
// configuration and builds the provider, tools, orchestrator and the UI that
// consumes its events.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/headless"
	"github.com/coder-agent/coder/internal/orchestrator"
)

// Version is set at build time with -ldflags "-X .../internal/app.Version=...".
var Version = "0.1.0-dev"

// IO is the process's standard streams and what is known about them.
type IO struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	InTTY  bool
	OutTTY bool
}

// Run runs coder with args (without the program name) and returns the exit code.
func Run(ctx context.Context, args []string, stdio IO, env func(string) (string, bool)) int {
	f, err := parseFlags(args, stdio.Err)
	if err != nil {
		fmt.Fprintln(stdio.Err, "coder: "+err.Error())
		return ExitUsage
	}
	switch {
	case f.help:
		fmt.Fprint(stdio.Out, usageText)
		return ExitOK
	case f.version:
		fmt.Fprintln(stdio.Out, "coder "+Version)
		return ExitOK
	}
	if !f.print && stdio.InTTY {
		fmt.Fprintln(stdio.Err, "coder: the interactive REPL is not available in this build yet; run a headless turn with: coder -p \"your request\"")
		return ExitUsage
	}
	return runHeadless(ctx, f, stdio, env)
}

func runHeadless(ctx context.Context, f flags, stdio IO, env func(string) (string, bool)) int {
	format, err := headless.ParseFormat(f.outputFormat)
	if err != nil {
		return usageError(stdio, err)
	}
	prompt, err := readPrompt(f, stdio)
	if err != nil {
		return usageError(stdio, err)
	}
	rt, err := build(ctx, f, env)
	if err != nil {
		return usageError(stdio, err)
	}
	defer rt.Close()
	p := &headless.Printer{Format: format, Out: stdio.Out, Err: stdio.Err}
	rt.sink.set(p)
	p.Emit(rt.sessionStarted())
	out, runErr := rt.orch.RunInput(ctx, prompt)
	p.Finish(out, runErr)
	code := exitCode(runErr)
	if runErr != nil && format == headless.Text {
		fmt.Fprintln(stdio.Err, "coder: "+oneLine(out.Reason))
	}
	return code
}

// readPrompt joins the positional arguments and, when stdin is a pipe, its content.
func readPrompt(f flags, stdio IO) (string, error) {
	prompt := strings.Join(f.args, " ")
	if !stdio.InTTY && stdio.In != nil {
		const maxStdin = 10 << 20
		b, err := io.ReadAll(io.LimitReader(stdio.In, maxStdin+1))
		if err != nil {
			return "", fmt.Errorf("reading stdin: %w", err)
		}
		if len(b) > maxStdin {
			return "", errors.New("stdin is larger than 10 MiB")
		}
		if s := strings.TrimSpace(string(b)); s != "" {
			prompt = strings.TrimSpace(prompt + "\n\n" + s)
		}
	}
	if strings.TrimSpace(prompt) == "" {
		return "", errors.New(`no prompt: use coder -p "your request" or pipe it on stdin`)
	}
	return prompt, nil
}

func exitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, orchestrator.ErrStepLimit):
		return ExitStepLimit
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ExitCancelled
	}
	return ExitFailure
}

func usageError(stdio IO, err error) int {
	fmt.Fprintln(stdio.Err, "coder: "+err.Error())
	return ExitUsage
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// envLookup is the real environment.
func envLookup(k string) (string, bool) { return os.LookupEnv(k) }

var _ event.Sink = (*headless.Printer)(nil)
