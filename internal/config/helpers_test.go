package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// envOf is an injected environment: tests never read the real one.
func envOf(m map[string]string) EnvFunc {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// noProbe is a ProbeFunc for tests where no Ollama runs.
func noProbe(context.Context, string) (string, bool) { return "", false }

// fixture is a user config dir and a project dir under t.TempDir().
type fixture struct {
	t          *testing.T
	user, cwd  string
	env        map[string]string
	flags      Overrides
	probeCalls []string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root := t.TempDir()
	// Trusted unless a test says otherwise: most tests are about merging.
	f := &fixture{t: t, user: filepath.Join(root, "user"), cwd: filepath.Join(root, "proj"), env: map[string]string{},
		flags: Overrides{Trust: true}}
	for _, d := range []string{f.user, f.cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) userFile() string    { return filepath.Join(f.user, "config.json") }
func (f *fixture) projectFile() string { return filepath.Join(f.cwd, ".coder", "config.json") }

func (f *fixture) writeUser(s string)    { writeFile(f.t, f.userFile(), s) }
func (f *fixture) writeProject(s string) { writeFile(f.t, f.projectFile(), s) }

func (f *fixture) load() (*Loaded, error) {
	return Load(Options{Cwd: f.cwd, UserConfigDir: f.user, Env: envOf(f.env), Flags: f.flags,
		ProbeOllama: func(_ context.Context, base string) (string, bool) {
			f.probeCalls = append(f.probeCalls, base)
			return "", false
		}})
}

func (f *fixture) mustLoad() *Loaded {
	f.t.Helper()
	l, err := f.load()
	if err != nil {
		f.t.Fatalf("Load: %v", err)
	}
	return l
}

// loadErr loads expecting failure and returns the message.
func (f *fixture) loadErr() string {
	f.t.Helper()
	_, err := f.load()
	if err == nil {
		f.t.Fatal("Load succeeded, want an error")
	}
	return err.Error()
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantContains(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("got %q\nwant it to contain %q", got, w)
		}
	}
}

// fileErrors extracts the *FileErrors from a (possibly joined) error.
func fileErrors(err error) []*FileError {
	var out []*FileError
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		var fe *FileError
		if errors.As(e, &fe) {
			out = append(out, fe)
		}
	}
	walk(err)
	return out
}
