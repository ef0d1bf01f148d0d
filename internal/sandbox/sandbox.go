// Package sandbox runs the commands coder starts inside an OS sandbox built
// by coder itself: the binary re-executes itself with a hidden argument
// (helper.Arg) and a spec this package builds, and that helper (package
// sandbox/helper, which runs it from its init, before the rest of coder
// initialises) sets the sandbox up with the kernel's own mechanisms before
// it starts the command. No external binary is needed.
//
// At LevelFull the helper is started in new user, mount, PID, IPC and (with
// the network off) network namespaces. It makes every mount read-only, binds
// the writable roots read-write and the protected paths read-only over them,
// masks the deny-read paths, mounts a fresh /proc, brings up a private
// loopback, drops every capability, sets no_new_privs, applies Landlock and
// then runs the command as its child, staying PID 1 of the namespace: when
// the command ends (or coder dies) everything it started dies with it.
//
// Where namespaces are not available the sandbox falls back, and says so
// (Probe): LevelLandlock confines writes, TCP and signals with Landlock
// alone, and a Guard restores the protected paths after each call; LevelNone
// is process containment only.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/coder-agent/coder/internal/paths"
	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// Level is how much of the sandbox this system allows.
type Level int

const (
	// LevelAuto (a Profile's zero value) is the best level Probe found.
	LevelAuto Level = iota
	// LevelNone is no OS sandbox: the command runs unconfined, but still
	// contained (it and everything it starts end with the call).
	LevelNone
	// LevelLandlock confines writes (and TCP and signals where the kernel's
	// Landlock ABI allows) without namespaces; protected paths inside the
	// workspace need a Guard, and deny_read is not enforced.
	LevelLandlock
	// LevelFull is namespaces and mounts, with Landlock on top when present.
	LevelFull
)

func (l Level) String() string {
	switch l {
	case LevelNone:
		return "none"
	case LevelLandlock:
		return "landlock"
	case LevelFull:
		return "full"
	}
	return "auto"
}

// ParseLevel reads a level name as String writes it.
func ParseLevel(s string) (Level, error) {
	for _, l := range []Level{LevelAuto, LevelNone, LevelLandlock, LevelFull} {
		if s == l.String() {
			return l, nil
		}
	}
	return LevelAuto, fmt.Errorf("unknown sandbox level %q (want auto, full, landlock or none)", s)
}

// Profile says what a sandboxed command may do. The caller fills it from
// the configuration and the mode; paths are absolute unless noted.
type Profile struct {
	// Workspace is the project directory, writable unless Policy is
	// ReadOnly.
	Workspace string
	// Policy is the call's access: the workspace writable (build mode),
	// read-only (plan mode), or no OS sandbox at all (FullAccess).
	Policy Policy
	// WritableRoots are further directories (or files) the command may
	// change, such as tool caches. Missing ones are skipped.
	WritableRoots []string
	// TempDir is the private temp directory: writable, and TMPDIR in the
	// command's environment. "" leaves TMPDIR alone (and not writable).
	TempDir string
	// Protected stay read-only inside writable roots, besides the control
	// entries a scan finds (Coverage); relative paths are relative to the
	// workspace.
	Protected []string
	// GitDirs are git directories outside the workspace that commands may
	// write (a linked worktree's own and common one, also in
	// WritableRoots): their control entries are protected as the
	// workspace's own .git is.
	GitDirs []string
	// DenyRead are files and directories the command cannot read: an empty
	// directory or an empty file is mounted over each (LevelFull only).
	DenyRead []string
	// DenyReadPatterns name files inside the workspace the command cannot
	// read (.env, *.pem): without a slash a pattern matches a name at any
	// depth, with one the path from the workspace root ("**" allowed); a
	// leading "!" excepts what it matches. Masked like DenyRead.
	DenyReadPatterns []string
	// Network lets the command reach the network; off, it has only its own
	// loopback (LevelFull) or no TCP at all (LevelLandlock, ABI 4+).
	Network bool
	// Env is the command's environment (nil: this process's). Variables
	// named like secrets are dropped and TMPDIR is set; set the environment
	// here, not on the returned Cmd, because the helper (visible to the
	// command as PID 1) carries it too.
	Env []string
	// Secrets are values (API keys) that must not enter the sandbox: a
	// variable holding one is dropped whatever its name (values shorter
	// than 8 bytes are ignored).
	Secrets []string
	// Scanned is what a scan of the workspace just found (Guard.Coverage),
	// to spare Command another; nil: Command scans.
	Scanned *Coverage
	// Level caps the layers used: LevelAuto uses the best Probe found;
	// LevelLandlock or LevelNone force a fallback (sandbox.mode "off", tests).
	Level Level
	// remountEach: the helper remounts the mounts read-only one by one, as
	// on kernels before 5.12, where the kernel could do it in one call
	// (helper.Spec.RemountEach; set by tests only).
	remountEach bool
}

// protected is the resolved list of the explicitly protected paths.
func (p Profile) protected() []string {
	out := make([]string, 0, len(p.Protected))
	for _, rel := range p.Protected {
		if filepath.IsAbs(rel) {
			out = append(out, filepath.Clean(rel))
		} else {
			out = append(out, filepath.Join(p.Workspace, rel))
		}
	}
	return out
}

// writable lists what the command may change: the workspace (unless
// read-only), the temp dir and the writable roots.
func (p Profile) writable() []string {
	var out []string
	if p.Policy != ReadOnly {
		out = append(out, p.Workspace)
	}
	if p.TempDir != "" {
		out = append(out, p.TempDir)
	}
	for _, r := range p.WritableRoots {
		if filepath.IsAbs(r) {
			out = append(out, filepath.Clean(r))
		}
	}
	return out
}

// Unenforced lists the DenyRead entries that hold the workspace or a
// writable path: hiding them would hide what the command must use, so
// they stay readable (coder doctor says so).
func (p Profile) Unenforced() []string {
	_, skipped := p.denyRead()
	return skipped
}

func (p Profile) denyRead() (enforced, skipped []string) {
	return p.enforceable(nil, p.DenyRead)
}

// enforceable splits paths to mask into those that can be and those that
// hold the workspace or a writable path.
func (p Profile) enforceable(r pathResolver, list []string) (enforced, skipped []string) {
	needed := append(p.writable(), p.Workspace)
	for i := range needed {
		needed[i] = r.resolve(needed[i])
	}
	for _, d := range list {
		rd := r.resolve(d)
		if slices.ContainsFunc(needed, func(n string) bool { return paths.Within(rd, n) }) {
			skipped = append(skipped, d)
		} else {
			enforced = append(enforced, d)
		}
	}
	return enforced, skipped
}

func (p Profile) spec(level Level, abi int) (helper.Spec, error) {
	r := pathResolver{}
	deny, _ := p.enforceable(r, p.DenyRead)
	s := helper.Spec{Writable: p.writable(), DenyRead: deny, Network: p.Network, RemountEach: p.remountEach}
	if p.Policy == ReadOnly {
		s.ReadOnly = []string{p.Workspace}
	} else {
		s.ReadOnly = p.protected()
	}
	switch level {
	case LevelFull:
		s.Mode = helper.ModeNS
		cov, err := p.coverage()
		if err != nil {
			return s, err
		}
		if p.Policy != ReadOnly {
			s.Pinned = cov.Pinned
			s.ReadOnly = append(s.ReadOnly, cov.ReadOnly...)
		}
		more, _ := p.enforceable(r, append(cov.Masked, p.socketPaths()...))
		s.DenyRead = append(s.DenyRead, more...)
		s.Keep, s.PrivateTmp = p.keepInTmp(r, s)
	case LevelLandlock:
		s.Mode = helper.ModeContain
	default:
		s.Mode, abi = helper.ModeContain, 0
	}
	if abi >= helper.MinABI {
		s.LandlockABI = abi
		s.Landlock = landlockWritable(s.Writable, p)
	}
	return s, nil
}

// coverage is Scanned, or a scan.
func (p Profile) coverage() (Coverage, error) {
	if p.Scanned != nil {
		return *p.Scanned, nil
	}
	return p.Coverage()
}

// level is the level p's commands run at: the best Probe found, or the
// lower one p asks for; none for FullAccess.
func (p Profile) level() Level {
	if p.Policy == FullAccess {
		return LevelNone
	}
	l := Probe().Level
	if p.Level != LevelAuto && p.Level < l {
		l = p.Level
	}
	return l
}

// landlockWritable drops writable roots that contain a read-only
// workspace: Landlock can only grant, so such a root would make the
// workspace writable. The mounts (LevelFull) still let the rest of it be
// written; under Landlock alone it stays read-only.
func landlockWritable(writable []string, p Profile) []string {
	if p.Policy != ReadOnly {
		return writable
	}
	var out []string
	for _, w := range writable {
		if !paths.Within(resolved(w), resolved(p.Workspace)) {
			out = append(out, w)
		}
	}
	return out
}

// Command returns the command that runs argv (e.g. /bin/bash -c CMD) in the
// sandbox p describes, at the best level this system allows (Probe) or the
// lower one p.Level asks for. The helper is PID 1 of the sandbox: when argv
// ends, everything it started is killed; the exit code is argv's (128+N for
// signal N). Dir defaults to the workspace; the caller sets the I/O. Start
// it with Start (or on a locked OS thread that outlives it): coder's death
// kills the sandbox through the parent-death signal, which follows the
// thread that started it. Cancelling ctx stops the whole sandbox.
func Command(ctx context.Context, p Profile, argv []string) (*exec.Cmd, error) {
	return command(ctx, p, argv, false)
}

// Background is Command for a long-lived task: the sandbox lives until its
// last process ends or it is stopped (Process.Stop), which ends every
// process in it.
func Background(p Profile, argv []string) (*exec.Cmd, error) {
	return command(context.Background(), p, argv, true)
}

func command(ctx context.Context, p Profile, argv []string, longLived bool) (*exec.Cmd, error) {
	level, s, err := p.prepare(argv)
	if err != nil {
		return nil, err
	}
	s.LongLived = longLived
	return helperCommand(ctx, p, level, s, argv)
}

// prepare checks argv and the workspace, and builds the helper's spec at
// the level p runs at.
func (p Profile) prepare(argv []string) (Level, helper.Spec, error) {
	if len(argv) == 0 || argv[0] == "" {
		return 0, helper.Spec{}, errors.New("sandbox: no command")
	}
	if !filepath.IsAbs(p.Workspace) {
		return 0, helper.Spec{}, fmt.Errorf("sandbox: the workspace must be an absolute path, got %q", p.Workspace)
	}
	level := p.level()
	s, err := p.spec(level, Probe().LandlockABI)
	if err != nil {
		return 0, helper.Spec{}, fmt.Errorf("sandbox: %w", err)
	}
	return level, s, nil
}

// helperCommand is the helper that sets spec s up at level and runs argv
// in it (none for a serving helper).
func helperCommand(ctx context.Context, p Profile, level Level, s helper.Spec, argv []string) (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: find own executable: %w", err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if b := currentBackend(); b.wrap != nil && level > LevelNone && len(argv) > 0 {
		argv = b.wrap(level, p.Access(), argv)
	}
	cmd := exec.CommandContext(ctx, exe, helper.Args(s, argv)...)
	cmd.Dir = p.Workspace
	cmd.Env = p.environ()
	cmd.SysProcAttr = sysProcAttr(s)
	// terminate lets the helper end the sandbox's processes itself;
	// SIGKILL follows if it hangs.
	cmd.Cancel = func() error { return terminate(cmd.Process) }
	cmd.WaitDelay = 3 * helper.StopGrace
	return cmd, nil
}

// pathResolver remembers resolved's answers for one spec, whose parts
// resolve the same paths (the workspace, the writable roots, $PATH's
// directories) several times. A nil one remembers nothing.
type pathResolver map[string]string

func (r pathResolver) resolve(p string) string {
	if r == nil {
		return resolved(p)
	}
	v, ok := r[p]
	if !ok {
		v = resolved(p)
		r[p] = v
	}
	return v
}

// resolved is p made absolute with symlinks followed where it exists.
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
