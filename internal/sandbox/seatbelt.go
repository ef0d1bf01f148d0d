package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/coder-agent/coder/internal/paths"
)

// SandboxExec is macOS's Seatbelt front end: it applies a profile to
// itself and execs the command, whose descendants inherit the profile.
const SandboxExec = "/usr/bin/sandbox-exec"

// seatbeltBase is what every sandboxed command may do whatever its
// access: run programs, signal and inspect its own processes, read the
// system's configuration, use the terminal and the null devices, and the
// system services ordinary tools (git, compilers, package managers) ask
// for. It follows what the peers' Seatbelt policies grant (Codex, Chrome).
const seatbeltBase = `(version 1)
(deny default)

; processes: run programs; signals and inspection within the sandbox only
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))

; the system: settings, users and groups, logging, shared memory, terminals
(allow sysctl-read)
(allow user-preference-read)
(allow ipc-posix-sem)
(allow ipc-posix-shm-read* ipc-posix-shm-write-data)
(allow pseudo-tty)
(allow file-ioctl)
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.logd")
  (global-name "com.apple.PowerManagement.control")
  (global-name "com.apple.CoreServices.coreservicesd")
  (global-name "com.apple.coreservices.launchservicesd"))
(allow file-write-data
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/dtracehelper")
  (subpath "/dev/fd"))
`

// seatbeltNetwork is added when the network is on: sockets, and the
// services that resolve names and check certificates.
const seatbeltNetwork = `
; network: on
(allow network-outbound)
(allow network-inbound)
(allow system-socket)
(allow mach-lookup
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.dnssd.service")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.networkd"))
`

// SeatbeltProfile is the Seatbelt profile for a, and the -D parameters
// that hold its paths: every path reaches the profile as a parameter,
// never as text inside it, so no file name can change its rules.
//
// Reads are allowed everywhere but the DenyRead paths. Writes are allowed
// below the writable roots (and the workspace when writable), except below
// a protected or deny_read path, and except the directories between a
// writable root and such a path (renaming one would carry the protected path out of
// reach, to be changed and moved back). Rules use require-not rather than
// a later deny, so nothing rests on the order Seatbelt matches rules in.
func SeatbeltProfile(a Access) (profile string, params []string) {
	var b strings.Builder
	b.WriteString(seatbeltBase)
	param := func(name, path string) string {
		params = append(params, fmt.Sprintf("-D%s=%s", name, path))
		return fmt.Sprintf("(param %q)", name)
	}

	denied := make([]string, len(a.DenyRead)) // their parameters
	b.WriteString("\n; reading: everything")
	if len(a.DenyRead) == 0 {
		b.WriteString("\n(allow file-read*)\n")
	} else {
		b.WriteString(" but deny_read\n(allow file-read*\n  (require-all\n    (subpath \"/\")")
		for i, d := range a.DenyRead {
			denied[i] = param(fmt.Sprintf("DENY_READ_%d", i), resolved(d))
			fmt.Fprintf(&b, "\n    (require-not (subpath %s))", denied[i])
		}
		b.WriteString("))\n")
	}

	var roots []string
	if a.Policy != ReadOnly {
		roots = append(roots, a.Workspace)
	}
	roots = append(roots, a.WritableRoots...)
	// The exceptions every writable root carries.
	var excepts []string
	if a.Policy == ReadOnly {
		excepts = append(excepts, fmt.Sprintf("(require-not (subpath %s))", param("WORKSPACE", resolved(a.Workspace))))
	}
	// A path that may not be read may not be written, renamed or replaced
	// either (moved elsewhere, it could be read there).
	held := resolvedAll(roots)
	for i, p := range a.Protected {
		rp := resolved(p)
		excepts = append(excepts, fmt.Sprintf("(require-not (subpath %s))", param(fmt.Sprintf("PROTECTED_%d", i), rp)))
		for j, anc := range ancestorsWithin(rp, held) {
			excepts = append(excepts, fmt.Sprintf("(require-not (literal %s))", param(fmt.Sprintf("PROTECTED_%d_PARENT_%d", i, j), anc)))
		}
	}
	for i, d := range a.DenyRead {
		excepts = append(excepts, fmt.Sprintf("(require-not (subpath %s))", denied[i]))
		for j, anc := range ancestorsWithin(resolved(d), held) {
			excepts = append(excepts, fmt.Sprintf("(require-not (literal %s))", param(fmt.Sprintf("DENY_READ_%d_PARENT_%d", i, j), anc)))
		}
	}
	b.WriteString("\n; writing: the writable roots, but not their protected paths\n")
	if len(roots) == 0 {
		b.WriteString("; (none)\n")
	} else {
		b.WriteString("(allow file-write*")
		for i, r := range roots {
			fmt.Fprintf(&b, "\n  (require-all\n    (subpath %s)", param(fmt.Sprintf("WRITABLE_ROOT_%d", i), resolved(r)))
			for _, e := range excepts {
				b.WriteString("\n    " + e)
			}
			b.WriteString(")")
		}
		b.WriteString(")\n")
	}

	if a.Network {
		b.WriteString(seatbeltNetwork)
	} else {
		b.WriteString("\n; network: off (no rule allows it)\n")
	}
	return b.String(), params
}

// SeatbeltArgv is the command line that runs argv under the profile for a.
func SeatbeltArgv(a Access, argv []string) []string {
	profile, params := SeatbeltProfile(a)
	out := append([]string{SandboxExec, "-p", profile}, params...)
	out = append(out, "--")
	return append(out, argv...)
}

func resolvedAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = resolved(p)
	}
	return out
}

// ancestorsWithin lists the directories strictly between p and the
// writable root that holds it, outermost first; none when no root holds
// p. (The root itself is left writable: renaming it needs its parent.)
func ancestorsWithin(p string, roots []string) []string {
	var out []string
	for dir := filepath.Dir(p); dir != p; p, dir = dir, filepath.Dir(dir) {
		held := false
		for _, r := range roots {
			if dir != r && paths.Within(r, dir) {
				held = true
			}
		}
		if !held {
			break
		}
		out = append([]string{dir}, out...)
	}
	return out
}
