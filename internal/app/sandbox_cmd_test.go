package app

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/sandbox/workspace"
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
// REPL would start in, a preset named plan included; where coder sandbox
// takes it from its package's init, without the agents' catalog, it
// takes the same, and it leaves every configuration with agents defined
// to the catalog.
func TestSubjectModeIsTheREPLs(t *testing.T) {
	for project, want := range map[string]agent.Mode{
		``:                                "build",
		`{"agents": {"default": "plan"}}`: "plan",
		`{"agents": {"default": "reviewer", "definitions": [{"name": "reviewer", "mode": "plan"}]}}`: "plan",
		`{"agents": {"default": "fixer", "definitions": [{"name": "fixer", "mode": "build"}]}}`:      "build",
		`{"permission": {"preset": "plan"}}`:                                                         "plan",
		`{"agents": {"default": "plan"}, "permission": {"preset": "build"}}`:                         "build",
	} {
		l := loadProject(t, project)
		got, err := startMode(l)
		if err != nil || got != want {
			t.Errorf("%s: mode %q (%v), want %q", project, got, err, want)
		}
		early, err := workspace.BuiltinStartMode(l)
		switch {
		case len(l.Config.Agents.Definitions) > 0:
			if err == nil {
				t.Errorf("%s: decided %q without the catalog", project, early)
			}
		case err != nil || early != want:
			t.Errorf("%s: without the catalog %q (%v), want %q", project, early, err, want)
		}
	}
}
