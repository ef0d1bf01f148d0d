package app

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/config"
)

// loadProject loads a trusted workspace of its own whose
// .coder/config.json is project; coder sandbox's and coder doctor's own
// runs are e2e's.
func loadProject(t *testing.T, project string) *config.Loaded {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, ".coder", "config.json")
	if err := errors.Join(os.MkdirAll(filepath.Dir(file), 0o755), os.WriteFile(file, []byte(project), 0o644)); err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) {
		if k == "HOME" {
			return dir, true
		}
		return "", false
	}
	l, err := config.Load(config.Options{Cwd: dir, UserConfigDir: filepath.Join(dir, "user"), Env: env, Flags: config.Overrides{Trust: true}})
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
		got, err := subjectMode(loadProject(t, project), "")
		if err != nil || got != want {
			t.Errorf("%s: mode %q (%v), want %q", project, got, err, want)
		}
	}
	if got, _ := subjectMode(loadProject(t, `{"permission": {"preset": "plan"}}`), "build"); got != agent.Build {
		t.Errorf("--mode build gave %q", got)
	}
}
