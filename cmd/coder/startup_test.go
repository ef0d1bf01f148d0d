package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/terminal"
)

// heavyInit are packages whose initialisation builds large tables (SQLite's
// C runtime, Markdown, JSON Schema, HTTP, the REPL's Markdown) and that a
// sandbox helper or `coder --version` never uses. earlyInit are more that
// they skip too (TestSandboxHelperStartsRightAfterOS is stricter still).
var (
	heavyInit = []string{"modernc.org/sqlite", "modernc.org/libc", "github.com/yuin/goldmark/parser",
		"github.com/google/jsonschema-go/jsonschema", "net/http", "github.com/coder-agent/coder/internal/repl/markdown"}
	earlyInit = []string{"modernc.org/mathutil", "golang.org/x/net/html", "encoding/gob"}
)

func buildCoder(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds coder")
	}
	bin := filepath.Join(t.TempDir(), "coder")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// initTrace runs bin with args under GODEBUG=inittrace=1 and returns its
// stdout and the packages initialised, in order.
func initTrace(t *testing.T, bin string, args ...string) (string, []string) {
	t.Helper()
	return initTraceIn(t, "", nil, bin, args...)
}

// initTraceIn is initTrace in dir with env added.
func initTraceIn(t *testing.T, dir string, env []string, bin string, args ...string) (string, []string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	var pkgs []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			pkgs = append(pkgs, f[1])
		}
	}
	return string(out), pkgs
}

// TestStartupSkipsProductInit: `coder --version` and a copy of coder
// re-executed as the sandbox helper finish before the product's heavy
// packages initialise; the same binary on the full path (flags parsed by
// app) initialises them, so the trace does see them when they run.
func TestStartupSkipsProductInit(t *testing.T) {
	bin := buildCoder(t)
	full, fullPkgs := initTrace(t, bin, "--model", "m", "--version")
	for _, p := range append(heavyInit, earlyInit...) {
		if !contains(fullPkgs, p) {
			t.Fatalf("control: %s is not initialised on the full path (%d packages are)", p, len(fullPkgs))
		}
	}
	for _, tc := range []struct {
		name    string
		args    []string
		out     string
		skipped []string
	}{
		{"version", []string{"--version"}, full, append(heavyInit, earlyInit...)},
		{"sandbox helper", helperTrue, "", append(heavyInit, earlyInit...)},
		{"editor terminal", terminalEcho(t), "in the terminal\n", heavyInit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, pkgs := initTrace(t, bin, tc.args...)
			if out != tc.out {
				t.Errorf("output %q, want %q", out, tc.out)
			}
			for _, p := range tc.skipped {
				if contains(pkgs, p) {
					t.Errorf("%s was initialised (%d packages of %d)", p, len(pkgs), len(fullPkgs))
				}
			}
			t.Logf("%d packages initialised of %d", len(pkgs), len(fullPkgs))
		})
	}
}

// TestSandboxCommandSkipsProductInit: `coder sandbox` runs from its
// package's init, before Markdown, JSON Schema, HTTP, SQLite and the REPL
// initialise, and before net/netip, whose imports (unique, weak) sort
// last and would hold the configuration's init behind all of those
// (package weburl); with agents defined in the configuration it leaves
// the command to coder's main, which initialises them: the control.
func TestSandboxCommandSkipsProductInit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the sandbox's own start is measured on Linux")
	}
	bin := buildCoder(t)
	later := []string{"github.com/yuin/goldmark/parser", "github.com/google/jsonschema-go/jsonschema", "net/http",
		"github.com/coder-agent/coder/internal/repl/markdown", "net/netip", "modernc.org/libc", "modernc.org/sqlite/lib", "crypto/tls"}
	ws, home := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	out, pkgs := initTraceIn(t, ws, env, bin, "sandbox", "--", "/bin/sh", "-c", "echo in the sandbox")
	if out != "in the sandbox\n" {
		t.Errorf("output %q", out)
	}
	for _, p := range later {
		if contains(pkgs, p) {
			t.Errorf("%s was initialised (%d packages)", p, len(pkgs))
		}
	}
	cfg := filepath.Join(ws, ".coder", "config.json")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(`{"agents": {"default": "fixer", "definitions": [{"name": "fixer", "mode": "build"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, pkgs = initTraceIn(t, ws, env, bin, "sandbox", "--trust", "--", "/bin/sh", "-c", "echo in the sandbox")
	if out != "in the sandbox\n" {
		t.Errorf("control: output %q", out)
	}
	for _, p := range later {
		if !contains(pkgs, p) {
			t.Errorf("control: with agents defined, %s was not initialised (%d packages)", p, len(pkgs))
		}
	}
}

// terminalEcho is what an editor's terminal runs for a bash call of coder's
// (package terminal), echoing in a sandbox on a temporary workspace.
func terminalEcho(t *testing.T) []string {
	_, args, _, err := terminal.Command(sandbox.Profile{Workspace: t.TempDir()}, []string{"/bin/sh", "-c", "echo in the terminal"})
	if err != nil {
		t.Fatal(err)
	}
	return args
}

// helperTrue runs true in the sandbox helper's lightest stage.
var helperTrue = []string{"__sandbox-exec", "mode=contain", "--", "true"}

// TestSandboxHelperStartsRightAfterOS: every sandboxed command starts a
// copy of coder as the helper, so it must set the sandbox up before any
// package but the few standard ones it needs initialises. Go initialises
// ready packages in import-path order, so a module package that only needs
// os would run first; the one allowed is coder's own internal/version
// (it imports only os and compares one argument, but sorts before the
// os/signal the helper waits for). The control: the same binary started
// otherwise initialises module packages after os.
func TestSandboxHelperStartsRightAfterOS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("elsewhere the helper is containment by proctree, which is not kept this light")
	}
	bin := buildCoder(t)
	_, control := initTrace(t, bin, "--model", "m", "--version")
	if len(afterOS(t, control)) == 0 {
		t.Fatalf("control: no module package initialised after os: %q", control)
	}
	_, pkgs := initTrace(t, bin, helperTrue...)
	for _, p := range afterOS(t, pkgs) {
		if p != "github.com/coder-agent/coder/internal/version" {
			t.Errorf("%s was initialised before the helper ran: %q", p, pkgs)
		}
	}
}

// afterOS lists the packages outside the standard library (a dot in the
// first element of the path) that pkgs initialised after os.
func afterOS(t *testing.T, pkgs []string) []string {
	t.Helper()
	i := slices.Index(pkgs, "os")
	if i < 0 {
		t.Fatalf("os is not initialised: %q", pkgs)
	}
	var out []string
	for _, p := range pkgs[i+1:] {
		first, _, _ := strings.Cut(p, "/")
		if strings.Contains(first, ".") {
			out = append(out, p)
		}
	}
	return out
}

// TestLinkedBySystemLinker: with cgo on, coder is linked by the system
// linker (extlink.go), whose binary starts faster; Go's internal linker
// writes no .init_array section, the system linker does.
func TestLinkedBySystemLinker(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("extlink.go is Linux-only")
	}
	if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Skip("cgo is off: Go's own linker is the only one")
	}
	f, err := elf.Open(buildCoder(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Section(".init_array") == nil {
		t.Error("coder was linked by Go's internal linker (no .init_array): does extlink.go still import \"C\"?")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
