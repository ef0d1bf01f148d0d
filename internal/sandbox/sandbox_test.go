package sandbox

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// TestMain: the test binary acts as the helper too (package
// sandbox/helper runs it from its init); it may also play a parent that
// dies (parent_test.go).
func TestMain(m *testing.M) {
	if os.Getenv("SANDBOX_TEST_PARENT") != "" {
		sandboxTestParent()
	}
	// Under -race every helper (this binary) would sleep a second at exit.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	os.Exit(m.Run())
}

// world is one test's file system: a workspace, a directory outside it, a
// fake home with secrets, and a private temp dir.
type world struct {
	base, ws, outside, home, tmp string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	base := t.TempDir()
	w := &world{base: base, ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"),
		home: filepath.Join(base, "home"), tmp: filepath.Join(base, "tmp")}
	for name, content := range map[string]string{
		"ws/README":              "workspace\n",
		"outside/keep":           "keep\n",
		"home/.bashrc":           "# rc\n",
		"home/.ssh/id_ed25519":   "SECRET-SSH-KEY\n",
		"home/.netrc":            "machine x password SECRET-NETRC\n",
		"home/.cache/go-build/x": "",
	} {
		writeTestFile(t, filepath.Join(base, name), content)
	}
	if err := os.Mkdir(w.tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	return w
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w *world) profile(level Level) Profile {
	return Profile{
		Workspace:     w.ws,
		TempDir:       w.tmp,
		WritableRoots: []string{filepath.Join(w.home, ".cache")},
		DenyRead:      []string{filepath.Join(w.home, ".ssh"), filepath.Join(w.home, ".netrc")},
		Env:           append(os.Environ(), "HOME="+w.home),
		Level:         level,
	}
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runWarm runs script in a kept sandbox (warm_linux_test.go).
var runWarm func(t *testing.T, p Profile, script string) result

type result struct {
	code           int
	stdout, stderr string
}

// run runs script with bash in the sandbox p describes. With
// CODER_TEST_WARM=1 the sandbox is one kept set up (Warm) that
// ran a command before: the suite then checks the kept sandbox's rules.
func run(t *testing.T, p Profile, script string) result {
	t.Helper()
	if runWarm != nil && os.Getenv("CODER_TEST_WARM") == "1" {
		return runWarm(t, p, script)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, err := Command(ctx, p, []string{"/bin/bash", "-c", script})
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	proc, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	_ = proc.Wait()
	return result{code: proc.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

// levels are the sandbox levels this system offers, best first, each a
// subtest: a guarantee is tested at every level that claims it.
func levels(t *testing.T, min Level) []Level {
	t.Helper()
	var out []Level
	for _, l := range []Level{LevelFull, LevelLandlock, LevelNone} {
		if l >= min && l <= Probe().Level {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		t.Skipf("no sandbox level >= %s here:\n%s", min, Probe())
	}
	return out
}

func needFull(t *testing.T) {
	t.Helper()
	if Probe().Level < LevelFull {
		t.Skipf("namespaces unavailable here:\n%s", Probe())
	}
}

func TestSpecFollowsProfileAndLevel(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{".git/config", ".git/hooks/x", ".coder/config.json", ".mcp.json", "sub/.git/config", ".env"} {
		writeTestFile(t, filepath.Join(ws, f), "x")
	}
	p := Profile{Workspace: ws, TempDir: "/tmp/t", WritableRoots: []string{"/c", "relative"}, DenyRead: []string{"/h/.ssh"},
		DenyReadPatterns: []string{".env"}}
	spec := func(l Level, abi int) helper.Spec {
		t.Helper()
		s, err := p.spec(l, abi)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := spec(LevelFull, 7)
	if s.Mode != helper.ModeNS || !slices.Equal(s.Writable, []string{ws, "/tmp/t", "/c"}) || s.LandlockABI != 7 {
		t.Errorf("full: %+v", s)
	}
	in := func(rel ...string) []string {
		var out []string
		for _, r := range rel {
			out = append(out, filepath.Join(ws, r))
		}
		return out
	}
	if !slices.Equal(s.ReadOnly, in(".coder", ".git/config", ".git/hooks", ".mcp.json", "sub/.git/config")) ||
		!slices.Equal(s.Pinned, in(".git", "sub/.git")) || !slices.Contains(s.DenyRead, filepath.Join(ws, ".env")) {
		t.Errorf("protected: %q, pinned %q, masked %q", s.ReadOnly, s.Pinned, s.DenyRead)
	}
	if !s.PrivateTmp || !slices.Contains(s.Keep, resolved(ws)) {
		t.Errorf("private /tmp: %v, keep %q", s.PrivateTmp, s.Keep)
	}
	if s := spec(LevelLandlock, 7); s.Mode != helper.ModeContain || s.LandlockABI != 7 || s.Pinned != nil {
		t.Errorf("landlock: %+v", s)
	}
	if s := spec(LevelNone, 7); s.Mode != helper.ModeContain || s.LandlockABI != 0 || s.Landlock != nil {
		t.Errorf("none: %+v", s)
	}
	if s := spec(LevelFull, 1); s.LandlockABI != 0 {
		t.Errorf("ABI 1 is not used: %+v", s)
	}
	p.Policy = ReadOnly
	s = spec(LevelFull, 7)
	if slices.Contains(s.Writable, ws) || !slices.Equal(s.ReadOnly, []string{ws}) || s.Pinned != nil ||
		!slices.Contains(s.DenyRead, filepath.Join(ws, ".env")) {
		t.Errorf("plan: %+v", s)
	}
	// Landlock can only grant: a root holding the read-only workspace is left out.
	p.WritableRoots = []string{"/"}
	if s := spec(LevelFull, 7); slices.Contains(s.Landlock, "/") || !slices.Contains(s.Writable, "/") {
		t.Errorf("a root above the read-only workspace: %+v", s)
	}
}

// TestEnvironmentDropsSecretsAndSetsTMPDIR: secrets are dropped, TMPDIR
// is the private one, and of a name given twice the last stays.
func TestEnvironmentDropsSecretsAndSetsTMPDIR(t *testing.T) {
	p := Profile{TempDir: "/tmp/private", Env: []string{"PATH=/bin", "HOME=/first", "OPENAI_API_KEY=sk-x", "GITHUB_TOKEN=t",
		"AWS_SECRET_ACCESS_KEY=s", "DB_PASSWORD=p", "TMPDIR=/tmp", "HOME=/h", "INNOCENT=Bearer sk-12345678", "SHORT=abc"},
		Secrets: []string{"sk-12345678", "abc"}}
	got := p.environ()
	want := []string{"PATH=/bin", "HOME=/h", "SHORT=abc", "TMPDIR=/tmp/private", "TMP=/tmp/private", "TEMP=/tmp/private"}
	if !slices.Equal(got, want) {
		t.Errorf("environ = %q, want %q", got, want)
	}
}

func TestCommandChecksItsInput(t *testing.T) {
	if _, err := Command(context.Background(), Profile{Workspace: "/ws"}, nil); err == nil {
		t.Error("no argv: no error")
	}
	if _, err := Command(context.Background(), Profile{Workspace: "ws"}, []string{"true"}); err == nil {
		t.Error("relative workspace: no error")
	}
}

// TestExitCodesPassThrough: the command's code, 128+N for a signal, 127
// for a missing program, at every level.
func TestExitCodesPassThrough(t *testing.T) {
	w := newWorld(t)
	for _, l := range levels(t, LevelNone) {
		t.Run(l.String(), func(t *testing.T) {
			for script, want := range map[string]int{"exit 0": 0, "exit 7": 7, "kill -TERM $$": 143, "kill -KILL $$": 137, "no-such-program-x": 127} {
				if r := run(t, w.profile(l), script); r.code != want {
					t.Errorf("%s: exit %d, want %d (%s)", script, r.code, want, r.stderr)
				}
			}
			r := run(t, w.profile(l), "echo out; echo err >&2; pwd")
			if r.stdout != "out\n"+w.ws+"\n" || r.stderr != "err\n" {
				t.Errorf("output: %+v", r)
			}
		})
	}
}
