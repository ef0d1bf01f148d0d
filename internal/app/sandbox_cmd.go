package app

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/sandbox"
)

// ExitSandboxFailed is `coder sandbox`'s own failure (bad flags or config,
// no sandbox set up), as env and docker run use it; any other code is the
// command's.
const ExitSandboxFailed = 125

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
	case terminalSandboxArg: // an editor's terminal running a bash call (terminal_launch.go)
		return runTerminalSandbox(ctx, args[1:], stdio), true
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
	mode   string // "build" or "plan"
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
	if *mode != "" && *mode != "build" && *mode != "plan" {
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
func subjectMode(l *config.Loaded, flagMode string) (string, error) {
	if flagMode != "" {
		return flagMode, nil
	}
	_, ag, err := startAgent(l.Config)
	if err != nil {
		return "", err
	}
	return string(ag.Mode), nil
}

// sandboxProfile is the sandbox for the model's commands in this workspace
// and mode ("build" or "plan"), with tempDir as the private TMPDIR: what
// bash calls, !cmd, auto-verify and hooks run under.
func sandboxProfile(l *config.Loaded, mode, tempDir string) sandbox.Profile {
	cfg := l.Config.Sandbox
	ws := l.Config.Runtime.WorkspaceRoot
	writable, denyRead := l.SandboxPaths()
	// coder's own user configuration may hold an API key.
	denyRead = append(denyRead, filepath.Join(l.UserDir, "config.json"))
	gitDirs := sandbox.GitWorktree(ws)
	p := sandbox.Profile{
		Workspace:        ws,
		ReadOnly:         mode == "plan",
		WritableRoots:    append(writable, gitDirs...),
		GitDirs:          gitDirs,
		TempDir:          tempDir,
		DenyRead:         denyRead,
		DenyReadPatterns: l.SandboxPatterns(),
		Network:          cfg.Network == "on",
	}
	if cfg.Mode == "off" {
		p.Level = sandbox.LevelNone
	}
	return p
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
	tmp, err := os.MkdirTemp("", "coder-sandbox-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	p := sandboxProfile(subj.loaded, subj.mode, tmp)
	if w := effectiveReport(p).Warning(); w != "" {
		fmt.Fprintln(stdio.Err, "coder "+w)
	}
	journals := journalDir(subj.loaded)
	recovered, err := sandbox.RecoverJournals(journals, p)
	for _, c := range recovered {
		fmt.Fprintln(stdio.Err, "coder sandbox: after a coder that ended early: "+c)
	}
	if err != nil {
		fmt.Fprintln(stdio.Err, "coder sandbox: "+err.Error())
	}
	guard, err := sandbox.WatchJournaled(p, journals)
	if err != nil {
		return fail(err)
	}
	defer guard.Close()
	p.Scanned = guard.Coverage()
	cmd, err := sandbox.Command(ctx, p, argv)
	if err != nil {
		return fail(err)
	}
	stderr := &tailBuffer{limit: 64 << 10}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.In, stdio.Out, io.MultiWriter(stdio.Err, stderr)
	cmd.Dir = subj.loaded.Cwd
	proc, err := sandbox.Start(cmd)
	if err != nil {
		return fail(err)
	}
	_ = proc.Wait()
	code := proc.ExitCode()
	changes, err := guard.Restore()
	for _, c := range changes {
		fmt.Fprintln(stdio.Err, "coder sandbox: "+c)
	}
	if err != nil {
		fmt.Fprintln(stdio.Err, "coder sandbox: checking the protected paths: "+err.Error())
	}
	if d, ok := sandbox.Explain(p, code, stderr.String()); ok && d.Kind != "setup" {
		fmt.Fprintln(stdio.Err, "coder sandbox: the sandbox refused this ("+d.Kind+" "+d.Path+"); coder doctor shows what it allows")
	}
	return code
}

// journalDir is where the sandbox keeps the baseline of the control
// files while commands run (sandbox.WatchJournaled): coder's user
// directory, which no command may write.
func journalDir(l *config.Loaded) string {
	return filepath.Join(l.UserDir, "sandbox-journal")
}

// effectiveReport is the probe report as commands with profile p see it:
// sandbox.mode "off" is no OS sandbox.
func effectiveReport(p sandbox.Profile) sandbox.Report {
	return sandbox.Probe().Limit(p.Level, `sandbox.mode "off"`)
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   bytes.Buffer
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if extra := b.buf.Len() - b.limit; extra > 0 {
		b.buf.Next(extra)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Clone(b.buf.String())
}
