package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Sandbox configures the OS sandbox around the commands coder runs for the
// model (SPEC §18).
type Sandbox struct {
	// Mode is "auto" (the strongest sandbox the system allows) or "off" (no
	// OS sandbox; commands still end with their call).
	Mode string `json:"mode"`
	// Network is "off" (the sandbox's own loopback only) or "on".
	Network string `json:"network"`
	// WritableRoots may be written besides the workspace and the private
	// temp dir: the tool caches by default. "~/" is the home directory,
	// "$VAR" an environment variable (an entry whose variable is unset is
	// skipped); a relative path is relative to the workspace.
	WritableRoots []string `json:"writable_roots"`
	// DenyRead are files and directories commands cannot read (credentials,
	// and the sockets of services that would run commands for them).
	DenyRead []string `json:"deny_read"`
}

var (
	sandboxModes    = []string{"auto", "off"}
	sandboxNetworks = []string{"off", "on"}
)

// defaultSandbox: on, offline, the usual caches writable (so go test, npm
// test, cargo test and pip work) and the usual credentials unreadable.
func defaultSandbox() Sandbox {
	return Sandbox{
		Mode:    "auto",
		Network: "off",
		WritableRoots: []string{"~/.cache", "$XDG_CACHE_HOME", "$GOCACHE", "$GOMODCACHE", "~/go/pkg/mod",
			"~/.npm", "~/.cargo/registry", "~/.cargo/git", "~/.cargo/.package-cache", "$PIP_CACHE_DIR"},
		DenyRead: []string{"~/.ssh", "~/.aws", "~/.gnupg", "~/.netrc", "~/.config/gcloud", "~/.kube",
			"~/.docker/config.json", "~/.git-credentials", "~/.config/gh", "~/.azure",
			// Sockets of services outside the sandbox that act for their
			// caller: the session bus (systemd-run --user), ssh and gpg
			// agents, Docker.
			"$XDG_RUNTIME_DIR", "$SSH_AUTH_SOCK", "/run/docker.sock", "/var/run/docker.sock"},
	}
}

// envRef is a leading $NAME or ${NAME}.
var envRef = regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

func validateSandbox(ps *problems, s Sandbox) {
	ps.oneOf("sandbox.mode", s.Mode, sandboxModes)
	ps.oneOf("sandbox.network", s.Network, sandboxNetworks)
	check := func(key string, list []string) {
		for i, p := range list {
			k := fmt.Sprintf("%s[%d]", key, i)
			switch {
			case strings.TrimSpace(p) == "":
				ps.add(k, "must not be empty")
			case strings.Contains(p, "$") && !envRef.MatchString(p) || strings.Count(p, "$") > 1:
				ps.add(k, `may use one variable, at the start ("$GOCACHE", "${HOME}/x"), got %q`, p)
			}
		}
	}
	check("sandbox.writable_roots", s.WritableRoots)
	check("sandbox.deny_read", s.DenyRead)
	for i, p := range s.WritableRoots {
		if filepath.Clean(p) == "/" {
			ps.add(fmt.Sprintf("sandbox.writable_roots[%d]", i), `"/" would make everything writable; set sandbox.mode to "off" instead`)
		}
	}
}

// SandboxPaths returns the writable roots and deny-read paths as absolute
// paths, "~/" and "$VAR" expanded with this load's environment; entries
// naming an unset variable are left out.
func (l *Loaded) SandboxPaths() (writable, denyRead []string) {
	ws := l.Config.Runtime.WorkspaceRoot
	return expandSandboxPaths(l.Config.Sandbox.WritableRoots, ws, l.env),
		expandSandboxPaths(l.Config.Sandbox.DenyRead, ws, l.env)
}

func expandSandboxPaths(list []string, dir string, env EnvFunc) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range list {
		if m := envRef.FindStringSubmatch(p); m != nil {
			v, _ := env(m[1] + m[2])
			// A list variable (GOPATH-style) counts by its first entry.
			v, _, _ = strings.Cut(v, string(os.PathListSeparator))
			if strings.TrimSpace(v) == "" {
				continue
			}
			p = v + p[len(m[0]):]
		}
		abs := absPath(p, dir, env)
		if !seen[abs] {
			seen[abs] = true
			out = append(out, abs)
		}
	}
	return out
}
