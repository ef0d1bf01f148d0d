package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/sandbox"
)

// loadIn loads the configuration of a trusted workspace dir with project
// as its .coder/config.json ("" for none), in a home of its own.
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

func TestSandboxProfileFollowsConfigAndMode(t *testing.T) {
	dir := t.TempDir()
	l := loadIn(t, dir, "")
	p := Profile(l, sandbox.WorkspaceWrite, "/tmp/t")
	if p.Workspace != dir || p.Policy != sandbox.WorkspaceWrite || p.Network || p.Level != sandbox.LevelAuto || p.TempDir != "/tmp/t" {
		t.Errorf("build profile: %+v", p)
	}
	home := filepath.Join(dir, "home")
	if !slices.Contains(p.WritableRoots, filepath.Join(home, ".cache")) || !slices.Contains(p.DenyRead, filepath.Join(home, ".ssh")) {
		t.Errorf("defaults missing: %q %q", p.WritableRoots, p.DenyRead)
	}
	if !slices.Contains(p.DenyRead, filepath.Join(dir, "user", "config.json")) {
		t.Errorf("coder's user config is readable: %q", p.DenyRead)
	}
	if p.Protected != nil || p.GitDirs != nil || !slices.Contains(p.DenyReadPatterns, ".env") ||
		!slices.Contains(p.DenyReadPatterns, "!.env.example") {
		t.Errorf("protected %q, git dirs %q, patterns %q", p.Protected, p.GitDirs, p.DenyReadPatterns)
	}
	if p := Profile(l, sandbox.ReadOnly, ""); p.Policy != sandbox.ReadOnly {
		t.Errorf("plan profile: %+v", p)
	}
	l = loadIn(t, t.TempDir(), `{"sandbox": {"mode": "off", "network": "on", "writable_roots": ["out"]}}`)
	p = Profile(l, sandbox.WorkspaceWrite, "")
	if p.Level != sandbox.LevelNone || !p.Network || !slices.Equal(p.WritableRoots, []string{filepath.Join(l.Cwd, "out")}) {
		t.Errorf("configured profile: %+v", p)
	}
}
