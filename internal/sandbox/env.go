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
	return out
}

func (p Profile) holdsSecret(value string) bool {
	return secrets.Holds(value, p.Secrets)
}
