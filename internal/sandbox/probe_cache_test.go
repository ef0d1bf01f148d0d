package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// useCacheDir points the probe cache at a fresh runtime dir for one test.
func useCacheDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	t.Setenv(ForceLevelEnv, "")
	return filepath.Join(dir, "coder", probeCacheName)
}

// TestProbeCacheRemembersSuccess: the second start of the same binary on
// the same system does not run the namespace probe again, and reports
// the same layers.
func TestProbeCacheRemembersSuccess(t *testing.T) {
	path := useCacheDir(t)
	first := probe()
	if first.Remembered {
		t.Fatal("the first probe claims to be remembered")
	}
	if first.Level != LevelFull {
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("a probe that found level %s left a cache entry", first.Level)
		}
		t.Skipf("namespaces unavailable here (level %s): nothing to remember", first.Level)
	}
	if len(readProbeCache(path)) != 1 {
		t.Fatalf("cache after one success: %v", readProbeCache(path))
	}
	second := probe()
	if !second.Remembered || second.Level != LevelFull || second.String() != first.String() {
		t.Fatalf("second probe: remembered %v, level %s\n%s\nfirst:\n%s", second.Remembered, second.Level, second, first)
	}
}

// TestProbeCacheKeyed: an entry for another binary or kernel, or a
// corrupt file, is not taken as an answer; the probe runs and the file is
// written anew.
func TestProbeCacheKeyed(t *testing.T) {
	key, err := currentProbeKey(probe().LandlockABI)
	if err != nil {
		t.Skipf("no probe key here: %v", err)
	}
	other := func(change func(*probeKey)) []byte {
		k := key
		change(&k)
		dir := t.TempDir()
		p := filepath.Join(dir, "c.json")
		rememberProbe(p, k)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	for name, content := range map[string][]byte{
		"other binary": other(func(k *probeKey) { k.Exe += " rebuilt" }),
		"other kernel": other(func(k *probeKey) { k.Kernel = "5.4.0 #1" }),
		"other boot":   other(func(k *probeKey) { k.Boot = "another boot" }),
		"other sysctl": other(func(k *probeKey) { k.Sysctl = "0 - - -" }),
		"corrupt":      []byte(`[{"exe": "half a`),
		"not a list":   []byte(`{"exe": 1}`),
	} {
		t.Run(name, func(t *testing.T) {
			path := useCacheDir(t)
			if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			r := probe()
			if r.Remembered {
				t.Fatalf("answered from a cache entry that does not match: %s", content)
			}
			if r.Level == LevelFull && !probeCached(path, key) {
				t.Fatalf("the success was not written over the old file: %v", readProbeCache(path))
			}
		})
	}
}

// TestProbeCacheForgottenOnHelperFailure: a sandbox whose helper exits
// with its set-up failure code drops the cache, so the next start
// probes; coder doctor's ForgetProbe does the same.
func TestProbeCacheForgottenOnHelperFailure(t *testing.T) {
	path := useCacheDir(t)
	if probe().Level != LevelFull {
		t.Skip("namespaces unavailable here: nothing is cached")
	}
	w := newWorld(t)
	run := func(script string) {
		t.Helper()
		cmd, err := Command(context.Background(), Profile{Workspace: w.ws, TempDir: w.tmp}, []string{"/bin/sh", "-c", script})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		_ = p.Wait()
	}
	run("exit 0")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("an ordinary command dropped the cache: %v", err)
	}
	run("exit 125")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the cache survived exit code %d: %v", helper.Failed, err)
	}
	if probe().Remembered {
		t.Fatal("the probe after the failure was answered from the cache")
	}
	ForgetProbe()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("ForgetProbe left the cache: %v", err)
	}
}

// TestProbeCacheDirMustBeOwn: a cache dir others may write (or that is
// not a directory) is not used: nothing is read from it or written to it.
func TestProbeCacheDirMustBeOwn(t *testing.T) {
	for name, make := range map[string]func(string) error{
		"group-writable": func(p string) error {
			if err := os.Mkdir(p, 0o777); err != nil {
				return err
			}
			return os.Chmod(p, 0o770)
		},
		"a symlink": func(p string) error { return os.Symlink(t.TempDir(), p) },
		"a file":    func(p string) error { return os.WriteFile(p, nil, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			path := useCacheDir(t)
			if err := make(filepath.Dir(path)); err != nil {
				t.Fatal(err)
			}
			if probeCacheDir() != "" {
				t.Fatalf("%s accepted as the cache dir", name)
			}
			if r := probe(); r.Remembered {
				t.Fatal("answered from a dir others may write")
			}
			if _, err := os.Lstat(path); err == nil {
				t.Fatalf("the probe wrote into %s", filepath.Dir(path))
			}
		})
	}
	// Positive control: a fresh runtime dir gets a dir of the user's own.
	path := useCacheDir(t)
	if got := probeCacheDir(); got != filepath.Dir(path) {
		t.Fatalf("cache dir %q, want %q", got, filepath.Dir(path))
	}
}
