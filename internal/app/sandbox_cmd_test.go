package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/config"
)

// coder sandbox's and coder doctor's own runs are e2e's.

func loadIn(t *testing.T, dir, project string) *config.Loaded {
	t.Helper()
	if project != "" {
		if err := os.MkdirAll(filepath.Join(dir, ".coder"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".coder/config.json"), []byte(project), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": filepath.Join(dir, "home"), "XDG_CONFIG_HOME": filepath.Join(dir, "home/.config")}
	// Trusted: a project's sandbox settings widen it, which only a trusted
	// workspace may do (an untrusted one's are dropped by config).
	l, err := config.Load(config.Options{Cwd: dir, UserConfigDir: filepath.Join(dir, "user"),
		Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, Flags: config.Overrides{Trust: true}})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestSubjectModeIsTheREPLs: coder sandbox and doctor judge the mode the
// REPL would start in, a preset named plan included.
func TestSubjectModeIsTheREPLs(t *testing.T) {
	for project, want := range map[string]agent.Mode{
		``:                                "build",
		`{"agents": {"default": "plan"}}`: "plan",
		`{"agents": {"default": "reviewer", "definitions": [{"name": "reviewer", "mode": "plan"}]}}`: "plan",
		`{"agents": {"default": "fixer", "definitions": [{"name": "fixer", "mode": "build"}]}}`:      "build",
		`{"permission": {"preset": "plan"}}`:                                                         "plan",
	} {
		got, err := subjectMode(loadIn(t, t.TempDir(), project), "")
		if err != nil || got != want {
			t.Errorf("%s: mode %q (%v), want %q", project, got, err, want)
		}
	}
	if got, _ := subjectMode(loadIn(t, t.TempDir(), `{"permission": {"preset": "plan"}}`), "build"); got != agent.Build {
		t.Errorf("--mode build gave %q", got)
	}
}
