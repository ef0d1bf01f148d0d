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
	"os/signal"
	"strings"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/headless"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/repl"
	"github.com/coder-agent/coder/internal/repl/render"
	"github.com/coder-agent/coder/internal/repl/style"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/termsafe"
	"github.com/coder-agent/coder/internal/version"
)

// IO is the process's standard streams and what is known about them.
type IO struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	InTTY  bool
	OutTTY bool
	// InFile and OutFile are the same streams as files, for terminal control.
	InFile, OutFile *os.File
}

// Run runs coder with args (without the program name) and returns the exit code.
func Run(ctx context.Context, args []string, stdio IO, env func(string) (string, bool)) int {
	ctx, stop := signal.NotifyContext(ctx, sandbox.EndSignals...)
	defer stop()
	// A no-op unless a session started telemetry.
	defer closeTelemetry(stdio.Err)
	if code, ok := runSubcommand(ctx, args, stdio, env); ok { // coder sandbox, coder doctor
		return code
	}
	f, err := parseFlags(args)
	if err != nil {
		return fail(stdio, setupError{err})
	}
	switch {
	case f.help:
		fmt.Fprint(stdio.Out, usageText)
		return ExitOK
	case f.version:
		fmt.Fprint(stdio.Out, version.Line())
		return ExitOK
	}
	if len(f.args) > 0 && f.args[0] == "sessions" && !f.print {
		return listSessions(f, stdio, env)
	}
	// What the kernel allows is probed by starting the sandbox helper once
	// (milliseconds): meanwhile the configuration and the session store load.
	go sandbox.Probe()
	if len(f.args) > 0 && f.args[0] == "acp" && !f.print {
		return runACP(ctx, f, stdio, env)
	}
	if len(f.args) > 0 && f.args[0] == "mcp" && !f.print {
		return runMCPServe(ctx, f, stdio, env)
	}
	if !f.print {
		return runREPL(ctx, f, stdio, env)
	}
	return runHeadless(ctx, f, stdio, env)
}

func runHeadless(ctx context.Context, f flags, stdio IO, env func(string) (string, bool)) int {
	format, err := headless.ParseFormat(f.outputFormat)
	if err != nil {
		return fail(stdio, setupError{err})
	}
	prompt, err := readPrompt(f, stdio)
	if err != nil && !(f.rewind > 0 && errors.Is(err, errNoPrompt)) {
		return fail(stdio, setupError{err})
	}
	if f.rewind > 0 && f.resume == "" && !f.continueLast {
		return fail(stdio, setupError{errors.New("--rewind goes with --resume ID or --continue: it rewinds that session")})
	}
	imgs, err := loadImages(f.images)
	if err != nil {
		return fail(stdio, setupError{err})
	}
	schema, err := loadSchema(f.schema)
	if err != nil {
		return fail(stdio, setupError{err})
	}
	b, err := loadBase(f, env)
	if err != nil {
		return fail(stdio, err)
	}
	b.schema = schema
	defer b.Close()
	p := &headless.Printer{Format: format, Out: stdio.Out, Err: stdio.Err}
	asm, err := build(ctx, b, orchestrator.Front{Sink: p,
		Approver: permission.NonInteractive{AllowDanger: b.cfg.Approval.AllowDanger}})
	if err != nil {
		return fail(stdio, err)
	}
	defer asm.Close()
	if err := asm.startSession(ctx, f); err != nil {
		return fail(stdio, err)
	}
	var out orchestrator.Outcome
	var runErr error
	if f.rewind > 0 {
		// Files a person changed since are left (and named): no one is
		// there to confirm overwriting them.
		out, runErr = asm.input.RunInput(ctx, fmt.Sprintf("/rewind %d both --keep", f.rewind))
		if runErr == nil && prompt != "" && format == headless.Text {
			fmt.Fprintln(stdio.Err, "coder: "+termsafe.Visible(out.Result))
		}
	}
	if runErr == nil && (f.rewind == 0 || prompt != "") {
		out, runErr = asm.input.RunPrompt(ctx, orchestrator.Prompt{Text: prompt, Images: imgs})
	}
	asm.finish("other") // its hooks' reports come before the result
	p.Finish(out, runErr)
	if runErr != nil && format == headless.Text {
		fmt.Fprintln(stdio.Err, "coder: "+oneLine(out.Reason))
	}
	return exitCode(runErr)
}

// runREPL is the interactive session, or line mode when stdin is not a terminal.
func runREPL(ctx context.Context, f flags, stdio IO, env func(string) (string, bool)) int {
	if len(f.args) > 0 {
		return fail(stdio, setupError{fmt.Errorf("unexpected argument %q (a prompt needs -p; see coder --help)", f.args[0])})
	}
	if err := headlessOnly(f); err != nil {
		return fail(stdio, setupError{err})
	}
	// The live input area and status line need a terminal on both sides;
	// with output to a file or a pipe, lines are read and output is plain.
	interactive := stdio.InTTY && stdio.OutTTY && stdio.InFile != nil && stdio.OutFile != nil
	b, err := loadBase(f, env)
	if err != nil {
		return fail(stdio, err)
	}
	if interactive && len(b.loaded.Untrusted) > 0 && askTrust(stdio, b.loaded) {
		b.Close()
		if b, err = loadBase(f, env); err != nil {
			return fail(stdio, err)
		}
	}
	defer b.Close()
	st := style.Style{Color: style.ColorEnabled(b.cfg.UI.Color, stdio.OutTTY, env)}
	rend := render.New(stdio.Out, st)
	rend.Configure(render.Options{Markdown: b.cfg.UI.Markdown})
	front := orchestrator.Front{Sink: rend, Approver: permission.NonInteractive{AllowDanger: b.cfg.Approval.AllowDanger}}
	var r *repl.REPL
	if interactive {
		term, _ := env("TERM")
		r = repl.New(repl.Options{In: stdio.InFile, Out: stdio.OutFile, Renderer: rend, Style: st, Term: term,
			Notify: repl.NewNotifier(b.cfg.Notifications, env)})
		front.Questioner = r
		front.Sink = r // the prompt takes its facts from the events, then the renderer draws them
		front.Inbox = r
		switch ap := b.cfg.Approval; {
		case !ap.Interactive:
			// keep the non-interactive approver
		case ap.AutoApproveAsk:
			front.Approver = permission.AutoApproveAsks{Person: r}
		default:
			front.Approver = r
		}
	}
	asm, err := build(ctx, b, front)
	if err != nil {
		return fail(stdio, err)
	}
	defer asm.Close()
	if err := asm.startSession(ctx, f); err != nil {
		return fail(stdio, err)
	}
	resumed := f.resume != "" || f.continueLast
	if !interactive {
		if resumed {
			asm.showResumed()
		}
		code := repl.RunLines(ctx, stdio.In, asm.input, rend)
		asm.finish("prompt_input_exit")
		return code
	}
	if resumed {
		r.Before(asm.showResumed) // laid out at the terminal's width
	}
	code := r.Run(ctx, asm.input)
	asm.finish("prompt_input_exit")
	return code
}

// listSessions is `coder sessions`.
func listSessions(f flags, stdio IO, env func(string) (string, bool)) int {
	b, err := loadBase(f, env)
	if err != nil {
		return fail(stdio, err)
	}
	defer b.Close()
	if err := b.openedStore(); err != nil {
		return fail(stdio, err)
	}
	sums, err := b.store.List(context.Background(), 0)
	if err != nil {
		return fail(stdio, err)
	}
	if len(sums) == 0 {
		fmt.Fprintln(stdio.Out, "no sessions yet in this workspace")
		return ExitOK
	}
	fmt.Fprint(stdio.Out, session.FormatList(sums, config.Location(b.cfg.UI)))
	return ExitOK
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
		return "", errNoPrompt
	}
	return prompt, nil
}

var errNoPrompt = errors.New(`no prompt: use coder -p "your request" or pipe it on stdin`)

func exitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, orchestrator.ErrStepLimit):
		return ExitStepLimit
	case errors.Is(err, orchestrator.ErrBudget):
		return ExitBudget
	case errors.Is(err, orchestrator.ErrSchemaMismatch):
		return ExitSchema
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ExitCancelled
	}
	return ExitFailure
}

// fail reports an error that stopped coder before or outside a run.
func fail(stdio IO, err error) int {
	fmt.Fprintln(stdio.Err, "coder: "+termsafe.Visible(err.Error()))
	var se setupError
	if errors.As(err, &se) {
		return ExitUsage
	}
	return ExitFailure
}

// oneLine is the first line of s, made safe for a terminal: a reason may
// quote a server's or the model's words.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return termsafe.Visible(s)
}
