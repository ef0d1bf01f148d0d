package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
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
	// and the sockets of services that would run commands for them). An
	// entry that does not start with "/", "~" or "$" is a pattern for
	// files inside the workspace (.env, *.pem): without a slash it matches
	// a name at any depth, with one the path from the workspace root ("**"
	// allowed); a leading "!" excepts what it matches.
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
			"$XDG_RUNTIME_DIR", "$SSH_AUTH_SOCK", "/run/docker.sock", "/var/run/docker.sock",
			// Secrets inside the workspace, at any depth (not the
			// committed examples, nor public keys).
			".env", ".env.*", "!.env.example", "!.env.sample", "*.pem", "*.key",
			"id_rsa*", "id_ed25519*", "id_ecdsa*", "!id_*.pub"},
	}
}

// envRef reads the $NAME or ${NAME} p starts with (a NAME is a letter or
// "_", then letters, digits and "_"): the variable's name and the length
// of the reference. ok is false when p starts with neither.
func envRef(p string) (name string, n int, ok bool) {
	rest, ok := strings.CutPrefix(p, "$")
	if !ok {
		return "", 0, false
	}
	rest, braced := strings.CutPrefix(rest, "{")
	i := 0
	for i < len(rest) && (rest[i] == '_' || 'A' <= rest[i] && rest[i] <= 'Z' || 'a' <= rest[i] && rest[i] <= 'z' ||
		i > 0 && '0' <= rest[i] && rest[i] <= '9') {
		i++
	}
	switch {
	case i == 0:
		return "", 0, false
	case !braced:
		return rest[:i], 1 + i, true
	case i < len(rest) && rest[i] == '}':
		return rest[:i], 3 + i, true
	}
	return "", 0, false
}

func startsWithEnvRef(p string) bool {
	_, _, ok := envRef(p)
	return ok
}

func validateSandbox(ps *problems, s Sandbox) {
	ps.oneOf("sandbox.mode", s.Mode, sandboxModes)
	ps.oneOf("sandbox.network", s.Network, sandboxNetworks)
	check := func(key string, list []string) {
		for i, p := range list {
			switch {
			case strings.TrimSpace(p) == "":
				ps.add(fmt.Sprintf("%s[%d]", key, i), "must not be empty")
			case strings.Contains(p, "$") && !startsWithEnvRef(p) || strings.Count(p, "$") > 1:
				ps.add(fmt.Sprintf("%s[%d]", key, i), `may use one variable, at the start ("$GOCACHE", "${HOME}/x"), got %q`, p)
			}
		}
	}
	check("sandbox.writable_roots", s.WritableRoots)
	check("sandbox.deny_read", s.DenyRead)
	for i, p := range s.DenyRead {
		if isWorkspacePattern(p) && !doublestar.ValidatePattern(strings.TrimPrefix(p, "!")) {
			ps.add(fmt.Sprintf("sandbox.deny_read[%d]", i), "is not a valid pattern: %q", p)
		}
	}
	for i, p := range s.WritableRoots {
		if filepath.Clean(p) == "/" {
			ps.add(fmt.Sprintf("sandbox.writable_roots[%d]", i), `"/" would make everything writable; set sandbox.mode to "off" instead`)
		}
	}
}

// SandboxPaths returns the writable roots and deny-read paths as absolute
// paths, "~/" and "$VAR" expanded with this load's environment; entries
// naming an unset variable are left out, and so are the deny-read
// patterns for files inside the workspace (SandboxPatterns).
func (l *Loaded) SandboxPaths() (writable, denyRead []string) {
	ws := l.Config.Runtime.WorkspaceRoot
	var paths []string
	for _, p := range l.Config.Sandbox.DenyRead {
		if !isWorkspacePattern(p) {
			paths = append(paths, p)
		}
	}
	return expandSandboxPaths(l.Config.Sandbox.WritableRoots, ws, l.env), expandSandboxPaths(paths, ws, l.env)
}

// SandboxPatterns returns the deny-read entries that name files inside the
// workspace (".env", "*.pem", "!.env.example", "config/secrets/*"), in
// order: the last one that matches a file decides.
func (l *Loaded) SandboxPatterns() []string {
	var out []string
	for _, p := range l.Config.Sandbox.DenyRead {
		if isWorkspacePattern(p) {
			out = append(out, p)
		}
	}
	return out
}

// isWorkspacePattern: a deny-read entry that is neither absolute, nor
// from the home directory, nor from a variable.
func isWorkspacePattern(p string) bool {
	return p != "" && !filepath.IsAbs(p) && !strings.HasPrefix(p, "~") && !strings.HasPrefix(p, "$")
}

func expandSandboxPaths(list []string, dir string, env EnvFunc) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range list {
		if name, n, ok := envRef(p); ok {
			v, _ := env(name)
			// A list variable (GOPATH-style) counts by its first entry.
			v, _, _ = strings.Cut(v, string(os.PathListSeparator))
			if strings.TrimSpace(v) == "" {
				continue
			}
			p = v + p[n:]
		}
		abs := absPath(p, dir, env)
		if !seen[abs] {
			seen[abs] = true
			out = append(out, abs)
		}
	}
	return out
}
