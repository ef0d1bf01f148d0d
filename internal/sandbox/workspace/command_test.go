package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/coder-agent/coder/internal/agent/mode"
	"github.com/coder-agent/coder/internal/config"
)

// TestLoadSubjectTakesModeFlagFirst: --mode wins over the configured start
// mode (a preset named plan); without it the start mode is taken; a bad
// --mode is an error before anything loads.
func TestLoadSubjectTakesModeFlagFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ws", ".coder", "config.json")
	if err := errors.Join(os.MkdirAll(filepath.Dir(file), 0o755), os.WriteFile(file, []byte(`{"permission": {"preset": "plan"}}`), 0o644)); err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) {
		switch k {
		case "HOME":
			return dir, true
		case "XDG_CONFIG_HOME":
			return filepath.Join(dir, "config"), true
		}
		return "", false
	}
	ws := filepath.Dir(filepath.Dir(file))
	for _, tc := range []struct {
		flags []string
		want  mode.Mode
	}{
		{[]string{"--mode", "build"}, mode.Build},
		{nil, mode.Plan},
	} {
		args := append(append([]string{"--cwd", ws, "--trust"}, tc.flags...), "--", "true")
		subj, rest, err := LoadSubject("sandbox", args, env, BuiltinStartMode)
		if err != nil || subj.Mode != tc.want || len(rest) != 1 || rest[0] != "true" {
			t.Errorf("%q: mode %q, rest %q, %v; want %q", tc.flags, subj.Mode, rest, err, tc.want)
		}
	}
	never := func(*config.Loaded) (mode.Mode, error) { t.Fatal("start mode asked"); return "", nil }
	if _, _, err := LoadSubject("sandbox", []string{"--mode", "review", "--", "true"}, env, never); err == nil {
		t.Error("--mode review was taken")
	}
}
