package config

import (
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestSandboxValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		mutate  func(s *Sandbox)
		key     string // "" = valid
		problem string
	}{
		{"defaults", func(*Sandbox) {}, "", ""},
		{"off", func(s *Sandbox) { s.Mode = "off" }, "", ""},
		{"network on", func(s *Sandbox) { s.Network = "on" }, "", ""},
		{"bad mode", func(s *Sandbox) { s.Mode = "strict" }, "sandbox.mode", `"auto", "off", got "strict"`},
		{"bad network", func(s *Sandbox) { s.Network = "yes" }, "sandbox.network", `"off", "on", got "yes"`},
		{"empty root", func(s *Sandbox) { s.WritableRoots = []string{"~/.cache", " "} }, "sandbox.writable_roots[1]", "empty"},
		{"slash", func(s *Sandbox) { s.WritableRoots = []string{"/"} }, "sandbox.writable_roots[0]", `set sandbox.mode to "off"`},
		{"variable inside", func(s *Sandbox) { s.DenyRead = []string{"/x/$HOME"} }, "sandbox.deny_read[0]", "one variable, at the start"},
		{"two variables", func(s *Sandbox) { s.DenyRead = []string{"$A/$B"} }, "sandbox.deny_read[0]", "one variable"},
		{"braced variable", func(s *Sandbox) { s.DenyRead = []string{"${HOME}/.secret"} }, "", ""},
		{"workspace pattern", func(s *Sandbox) { s.DenyRead = []string{"*.pem", "!ok.pem", "conf/**/*.key"} }, "", ""},
		{"bad pattern", func(s *Sandbox) { s.DenyRead = []string{"[.env"} }, "sandbox.deny_read[0]", "not a valid pattern"},
	}
	for _, tt := range tests {
		c := Defaults()
		tt.mutate(&c.Sandbox)
		err := Validate(c)
		if tt.key == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		var fe *FileError
		if !errors.As(err, &fe) || fe.Key != tt.key || !strings.Contains(fe.Problem, tt.problem) {
			t.Errorf("%s: got %v, want %s: …%s…", tt.name, err, tt.key, tt.problem)
		}
	}
}

func TestSandboxFromFilesWithFileAndKeyInErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.writeProject(`{"sandbox": {"network": "on", "writable_roots": ["build", "~/.m2"], "deny_read": []}}`)
	l := f.mustLoad()
	if s := l.Config.Sandbox; s.Network != "on" || s.Mode != "auto" || len(s.DenyRead) != 0 {
		t.Errorf("sandbox = %+v", s)
	}
	f.writeProject(`{"sandbox": {"mode": "strict"}}`)
	_, err := f.load()
	if err == nil || !strings.Contains(err.Error(), f.projectFile()) || !strings.Contains(err.Error(), "sandbox.mode") {
		t.Errorf("error %v does not name the file and key", err)
	}
	f.writeProject(`{"sandbox": {"netwrk": "on"}}`)
	if _, err := f.load(); err == nil || !strings.Contains(err.Error(), `did you mean "sandbox.network"`) {
		t.Errorf("typo: %v", err)
	}
}

func TestSandboxPathsExpand(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env["HOME"] = "/home/u"
	f.env["GOCACHE"] = "/var/cache/go"
	f.env["GOMODCACHE"] = ""
	f.env["XDG_RUNTIME_DIR"] = "/run/user/1000"
	f.env["SSH_AUTH_SOCK"] = "/tmp/ssh-x/agent.1"
	f.writeProject(`{"sandbox": {"writable_roots": ["~/.cache", "$GOCACHE", "$GOMODCACHE", "$UNSET/x", "build", "${GOCACHE}/sub", "~/.cache"],
		"deny_read": ["~/.ssh", "$XDG_RUNTIME_DIR", "$SSH_AUTH_SOCK", "/run/docker.sock", ".env", "!.env.example", "config/**/*.key"]}}`)
	l := f.mustLoad()
	rw, deny := l.SandboxPaths()
	if got := l.SandboxPatterns(); !slices.Equal(got, []string{".env", "!.env.example", "config/**/*.key"}) {
		t.Errorf("patterns = %q", got)
	}
	wantRW := []string{"/home/u/.cache", "/var/cache/go", filepath.Join(f.cwd, "build"), "/var/cache/go/sub"}
	if !slices.Equal(rw, wantRW) {
		t.Errorf("writable = %q, want %q", rw, wantRW)
	}
	wantDeny := []string{"/home/u/.ssh", "/run/user/1000", "/tmp/ssh-x/agent.1", "/run/docker.sock"}
	if !slices.Equal(deny, wantDeny) {
		t.Errorf("deny_read = %q, want %q", deny, wantDeny)
	}
}

func TestDefaultSandboxPathsAreAbsolute(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.env["HOME"] = "/home/u"
	rw, deny := f.mustLoad().SandboxPaths()
	for _, p := range append(rw, deny...) {
		if !filepath.IsAbs(p) {
			t.Errorf("%q is not absolute", p)
		}
	}
	if !slices.Contains(rw, "/home/u/.cache") || !slices.Contains(deny, "/home/u/.ssh") || slices.Contains(deny, "") {
		t.Errorf("writable %q, deny %q", rw, deny)
	}
}

// envRefPattern is the regular expression envRef replaced; envRef must
// read exactly what it matched.
var envRefPattern = regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

func FuzzEnvRef(f *testing.F) {
	for _, s := range []string{"$HOME", "${HOME}/x", "${HOME", "$", "${}", "$1x", "$_a1/b", "${a-b}", "x$HOME",
		"$HOME}", "${_}", "$A$B", "${Ab9}", "$é", "~/.cache", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, n, ok := envRef(s)
		m := envRefPattern.FindStringSubmatch(s)
		if ok != (m != nil) || ok && (name != m[1]+m[2] || n != len(m[0])) {
			t.Fatalf("envRef(%q) = %q, %d, %v; the pattern matched %q", s, name, n, ok, m)
		}
	})
}
