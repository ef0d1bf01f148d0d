package sandbox

import (
	"strings"

	"github.com/coder-agent/coder/internal/secrets"
)

// environ is the command's environment: p.Env (or this process's) without
// secret-named variables (their values never enter the sandbox: the
// helper, PID 1 inside, and every process there can read each other's
// environment) or ones holding p.Secrets, without the variables that point
// at services listening outside (IsIPCVariable: $TMUX, $DISPLAY, …), with
// TMPDIR (and TMP, TEMP) set to the private temp dir.
func (p Profile) environ() []string {
	base := p.baseEnv()
	out := make([]string, 0, len(base)+3)
	for _, kv := range base {
		name, value, _ := strings.Cut(kv, "=")
		if secrets.IsSecretName(name) || IsIPCVariable(name) || p.holdsSecret(value) {
			continue
		}
		if p.TempDir != "" && (name == "TMPDIR" || name == "TMP" || name == "TEMP") {
			continue
		}
		out = append(out, kv)
	}
	if p.TempDir != "" {
		out = append(out, "TMPDIR="+p.TempDir, "TMP="+p.TempDir, "TEMP="+p.TempDir)
	}
	return lastWins(out)
}

// lastWins keeps the last entry of each name, in order, as exec.Cmd does:
// a command handed to a kept sandbox gets the list as it is, and getenv
// would take the first.
func lastWins(env []string) []string {
	seen := make(map[string]bool, len(env))
	w := len(env)
	for i := len(env) - 1; i >= 0; i-- {
		name, _, _ := strings.Cut(env[i], "=")
		if seen[name] {
			continue
		}
		seen[name] = true
		w--
		env[w] = env[i]
	}
	return env[w:]
}

func (p Profile) holdsSecret(value string) bool {
	return secrets.Holds(value, p.Secrets)
}
