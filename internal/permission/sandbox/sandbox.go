// Package sandbox runs shell commands under an OS sandbox: on Linux,
// Landlock confines where a command may write. Landlock restricts the
// calling process and is inherited by its children, so coder re-executes
// itself with a hidden argument (HelperArg); that child applies the
// restriction and then execs the shell. main calls MaybeRunHelper first.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// HelperArg is the hidden first argument that turns the coder binary into
// the sandbox helper: coder __sandbox-exec [--ro] [--rw DIR]... -- SHELL -c CMD
const HelperArg = "__sandbox-exec"

// ErrUnsupported: no sandbox on this system; Command's error wraps it
// with the reason, so the caller can run unsandboxed and say so.
var ErrUnsupported = errors.New("sandbox unsupported")

// Policy says what a sandboxed command may write. Everything is readable
// and executable; the harmless devices (/dev/null, /dev/tty, …) are
// always writable.
type Policy struct {
	// ReadOnly: the workspace is read-only (plan mode). With no Writable
	// given, only the temp and cache directories are writable.
	ReadOnly bool
	// Writable are the directories (or files) the command may change.
	Writable []string
	// Env is added to the command's environment (TMPDIR for a private
	// scratch directory).
	Env []string
}

// PlanPolicyFor is plan mode's policy for a workspace: scratch directories
// writable, the workspace not. Landlock can only grant, so a writable
// directory that contains the workspace would make the workspace writable
// too: such a directory is left out, and when it is the temp dir, a
// private scratch directory beside the workspace takes its place (TMPDIR
// points there).
func PlanPolicyFor(workspace string) (Policy, error) {
	ws := resolved(workspace)
	p := Policy{ReadOnly: true}
	for _, d := range TempDirs() {
		if !contains(resolved(d), ws) {
			p.Writable = append(p.Writable, d)
			continue
		}
		if d != os.TempDir() {
			continue
		}
		scratch, err := scratchDir()
		if err != nil {
			return Policy{}, err
		}
		p.Writable = append(p.Writable, scratch)
		p.Env = append(p.Env, "TMPDIR="+scratch)
	}
	return p, nil
}

var (
	scratchOnce sync.Once
	scratchPath string
	scratchErr  error
)

// scratchDir is one private temp directory per process.
func scratchDir() (string, error) {
	scratchOnce.Do(func() { scratchPath, scratchErr = os.MkdirTemp("", "coder-sandbox-") })
	return scratchPath, scratchErr
}

func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// contains reports whether dir is path or one of its ancestors.
func contains(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// PlanPolicy: nothing but temp and cache directories is writable.
func PlanPolicy() Policy { return Policy{ReadOnly: true, Writable: TempDirs()} }

// BuildPolicy: the workspace and the temp and cache directories.
func BuildPolicy(workspace string) Policy {
	return Policy{Writable: append([]string{workspace}, TempDirs()...)}
}

// TempDirs are the scratch directories tools expect to write: the temp
// dir and the user's cache (Go's build cache, pip's, npm's, …).
func TempDirs() []string {
	dirs := []string{os.TempDir()}
	if d, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, d)
	}
	return dirs
}

func (p Policy) writable() []string {
	if p.ReadOnly && len(p.Writable) == 0 {
		return TempDirs()
	}
	return p.Writable
}

// Option adjusts Command.
type Option func(*options)

type options struct{ executable string }

// WithExecutable sets the binary that acts as the helper (tests use the
// test binary; the default is os.Executable()).
func WithExecutable(path string) Option { return func(o *options) { o.executable = path } }

// Command builds the exec.Cmd running `shell -c command` under p. It
// fails with an error wrapping ErrUnsupported when there is no sandbox.
func Command(ctx context.Context, p Policy, shell, command string, opts ...Option) (*exec.Cmd, error) {
	if ok, why := Supported(); !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, why)
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	exe := o.executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox: find own executable: %w", err)
		}
	}
	cmd := exec.CommandContext(ctx, exe, helperArgs(p, shell, command)...)
	if len(p.Env) > 0 {
		cmd.Env = append(os.Environ(), p.Env...)
	}
	return cmd, nil
}

func helperArgs(p Policy, shell, command string) []string {
	args := []string{HelperArg}
	if p.ReadOnly {
		args = append(args, "--ro")
	}
	for _, d := range p.writable() {
		if abs, err := filepath.Abs(d); err == nil {
			args = append(args, "--rw", abs)
		}
	}
	return append(args, "--", shell, "-c", command)
}

// parseHelperArgs reads what helperArgs wrote.
func parseHelperArgs(args []string) (writable, argv []string, err error) {
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--ro":
		case "--rw":
			if i+1 >= len(args) {
				return nil, nil, errors.New("--rw needs a directory")
			}
			writable = append(writable, args[i+1])
			i++
		case "--":
			if i+1 >= len(args) {
				return nil, nil, errors.New("no command after --")
			}
			return writable, args[i+1:], nil
		default:
			return nil, nil, fmt.Errorf("unknown argument %q", args[i])
		}
	}
	return nil, nil, errors.New("no command (missing --)")
}

// MaybeRunHelper turns this process into the sandbox helper when it was
// started with HelperArg: it applies the restriction and execs the
// command, never returning. Otherwise it returns at once. main calls it
// before anything else.
func MaybeRunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	os.Exit(runHelper(os.Args[2:]))
}

func runHelper(args []string) int {
	writable, argv, err := parseHelperArgs(args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "coder sandbox: %v\n", err)
		return 2
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "coder sandbox: %v\n", err)
		return 127
	}
	if err := restrictAndExec(writable, path, argv); err != nil {
		fmt.Fprintf(os.Stderr, "coder sandbox: %s\n", strings.TrimSpace(err.Error()))
		return 126
	}
	return 0 // not reached: exec replaced the process
}
