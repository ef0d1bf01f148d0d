package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/workspace"
)

const doctorUsage = `Usage: coder doctor [--mode build|plan] [--cwd DIR]

Shows which layers of the sandbox work on this system and why the others do
not, and what commands in this workspace may write, may not read, and
whether they reach the network.
`

// runDoctor is `coder doctor`.
func runDoctor(args []string, stdio IO, env func(string) (string, bool)) int {
	// A new look, not what an earlier start remembered.
	sandbox.ForgetProbe()
	subj, rest, err := workspace.LoadSubject("doctor", args, env, startMode)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdio.Out, doctorUsage)
		return ExitOK
	}
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("unexpected argument %q", rest[0])
	}
	if err != nil {
		fmt.Fprint(stdio.Out, sandbox.Probe().String())
		fmt.Fprintln(stdio.Err, "coder doctor: "+err.Error())
		return ExitUsage
	}
	p := workspace.Profile(subj.Loaded, subj.Mode.Access(), "$TMPDIR")
	r := workspace.Report(p)
	fmt.Fprint(stdio.Out, r.String())
	if w := r.Warning(); w != "" {
		fmt.Fprintln(stdio.Out, "warning: "+w)
	}
	fmt.Fprintln(stdio.Out)
	describeProfile(stdio.Out, p, subj, r)
	return ExitOK
}

// describeProfile says what commands in this workspace may do.
func describeProfile(w io.Writer, p sandbox.Profile, subj workspace.Subject, r sandbox.Report) {
	fmt.Fprintf(w, "commands in %s (%s mode):\n", p.Workspace, subj.Mode)
	if r.Level == sandbox.LevelNone {
		fmt.Fprintln(w, "  may write anywhere this user can: there is no OS sandbox")
	} else {
		fmt.Fprintln(w, "  may write:")
		if p.Policy == sandbox.ReadOnly {
			fmt.Fprintln(w, "    (not the workspace: it is read-only in plan mode)")
		} else {
			fmt.Fprintf(w, "    %s (the workspace)\n", p.Workspace)
		}
		tmp := "/tmp itself is read-only"
		if r.Level == sandbox.LevelFull {
			tmp = "/tmp itself is private, empty and read-only"
		}
		fmt.Fprintf(w, "    $TMPDIR (a private temp dir per session; %s)\n", tmp)
		present, missing := split(p.WritableRoots)
		for _, d := range present {
			fmt.Fprintf(w, "    %s\n", d)
		}
		if len(missing) > 0 {
			fmt.Fprintf(w, "    (absent, so not writable: %s)\n", strings.Join(missing, ", "))
		}
	}
	describeControl(w, p, r)
	present, missing := split(p.DenyRead)
	switch {
	case r.Level < sandbox.LevelFull:
		fmt.Fprintln(w, "  may read everything this user can (deny_read needs the mount namespace)")
	case len(present) > 0:
		fmt.Fprintf(w, "  may not read: %s (and %d sandbox.deny_read paths absent here)\n", strings.Join(present, ", "), len(missing))
	default:
		fmt.Fprintf(w, "  may not read: none of the %d sandbox.deny_read paths exists here\n", len(missing))
	}
	if skipped := p.Unenforced(); len(skipped) > 0 && r.Level == sandbox.LevelFull {
		fmt.Fprintf(w, "  may read, though in sandbox.deny_read (they hold the workspace or a writable path): %s\n", strings.Join(skipped, ", "))
	}
	describeSockets(w, p, r)
	fmt.Fprintf(w, "  network: %s\n", networkText(p, r))
	fmt.Fprintln(w, "  processes: nothing a command starts outlives it")
	fmt.Fprintln(w, "\nwiden it in .coder/config.json or ~/.config/coder/config.json: sandbox.writable_roots, sandbox.deny_read, sandbox.network (\"on\"), sandbox.mode (\"off\")")
}

// describeControl says which control files commands may not change, and
// which of the workspace's files they may not read, found by the same scan
// every call makes.
func describeControl(w io.Writer, p sandbox.Profile, r sandbox.Report) {
	cov, err := p.Coverage()
	if errors.Is(err, sandbox.ErrNoGuard) {
		fmt.Fprintf(w, "  control files: %v\n", err)
		return
	}
	if err != nil {
		fmt.Fprintf(w, "  control files: cannot look for them: %v\n", err)
		return
	}
	rel := func(list []string) []string {
		out := make([]string, len(list))
		for i, a := range list {
			if x, err := filepath.Rel(p.Workspace, a); err == nil && !strings.HasPrefix(x, "..") {
				a = x
			}
			out[i] = a
		}
		return out
	}
	if p.Policy != sandbox.ReadOnly { // the guard holds at every level, "none" too
		all := append(append(rel(cov.Pinned), rel(cov.ReadOnly)...), rel(cov.Unbound)...)
		slices.Sort(all)
		how := "bound read-only; a .git directory bound onto itself, so it stays writable but cannot be replaced"
		if r.Level < sandbox.LevelFull || r.Backend != "" { // no mounts but Linux's
			how = "put back after each call if they changed while it ran"
		}
		fmt.Fprintf(w, "  may not change (%s): %d control files found in %d directories: %s\n", how, len(all), cov.Dirs, shortList(all, 24))
		fmt.Fprintln(w, "    (one that appears during a call — a new .mcp.json, .git/commondir, a nested repository — is moved aside after it)")
	}
	if len(cov.Masked) > 0 {
		if r.Level < sandbox.LevelFull {
			fmt.Fprintf(w, "  may read, though named by sandbox.deny_read's patterns (masking needs the mount namespace): %s\n", shortList(rel(cov.Masked), 12))
		} else {
			fmt.Fprintf(w, "  may not read (empty and read-only; sandbox.deny_read's patterns): %s\n", shortList(rel(cov.Masked), 12))
		}
	}
}

// describeSockets says which services listening outside commands cannot
// reach, and which variables pointing at them are not passed in.
func describeSockets(w io.Writer, p sandbox.Profile, r sandbox.Report) {
	var set []string
	for _, name := range sandbox.IPCVariables() {
		if _, ok := os.LookupEnv(name); ok {
			set = append(set, "$"+name)
		}
	}
	env := "none is set here"
	if len(set) > 0 {
		env = strings.Join(set, ", ")
	}
	fmt.Fprintf(w, "  sockets: variables naming a terminal multiplexer, display, session bus or agent not passed in (%s)\n", env)
	switch {
	case r.Level < sandbox.LevelFull:
		fmt.Fprintln(w, "    named sockets of services outside stay reachable (tmux, screen, X11, the session bus): that needs the mount namespace")
	default:
		fmt.Fprintln(w, "    /tmp is private and empty (tmux, X11, ICE and other sockets there out of reach); abstract sockets cut by the network namespace")
		if places := p.SocketPlaces(); len(places) > 0 {
			fmt.Fprintf(w, "    masked: %s\n", strings.Join(places, ", "))
		}
	}
}

// shortList joins list, at most n entries, saying how many more there are.
func shortList(list []string, n int) string {
	if len(list) == 0 {
		return "none"
	}
	if len(list) <= n {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s, … and %d more", strings.Join(list[:n], ", "), len(list)-n)
}

func networkText(p sandbox.Profile, r sandbox.Report) string {
	switch {
	case p.Network:
		return "on (sandbox.network)"
	case r.Level == sandbox.LevelFull && r.Backend != "":
		return "off: no network at all, loopback included (sandbox.network)"
	case r.Level == sandbox.LevelFull:
		return "off: only the sandbox's own loopback (sandbox.network)"
	case r.Level == sandbox.LevelLandlock && r.LandlockABI >= 4:
		return "off: no TCP at all, loopback included; UDP is not blocked (sandbox.network)"
	}
	return "not restricted (sandbox.network \"off\" needs namespaces or Landlock ABI 4)"
}

// split separates the paths that exist from those that do not.
func split(paths []string) (present, missing []string) {
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			present = append(present, p)
		} else {
			missing = append(missing, filepath.Clean(p))
		}
	}
	return present, missing
}
