package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The Seatbelt profiles coder gives macOS, checked here on any system
// against golden files: read them to review what a command may do.
func TestSeatbeltProfileGolden(t *testing.T) {
	ws := "/Users/dev/proj"
	tmp := "/private/var/folders/xy/coder-tmp"
	// A scan that found nothing (the path is not on this system): the
	// workspace's own control entries are denied all the same.
	base := Profile{Workspace: ws, TempDir: tmp, Scanned: &Coverage{}}
	cases := []struct {
		name string
		p    func(Profile) Profile
	}{
		{"build", func(p Profile) Profile { return p }},
		{"plan", func(p Profile) Profile { p.Policy = ReadOnly; return p }},
		{"network_on", func(p Profile) Profile { p.Network = true; return p }},
		{"writable_roots", func(p Profile) Profile {
			p.WritableRoots = []string{"/Users/dev/.cache/go-build", "/Users/dev/.npm", "relative/ignored"}
			p.Protected = []string{".git/config", ".git/hooks", "/Users/dev/.npm/_cacache/index-v5"}
			return p
		}},
		{"scanned", func(p Profile) Profile {
			// What the guard's scan found deeper down is denied too; a
			// nested repository's .git stays writable (git commit there).
			p.Scanned = &Coverage{Pinned: []string{ws + "/sub/.git"},
				ReadOnly: []string{ws + "/sub/.git/config", ws + "/sub/.git/hooks", ws + "/tools/.mcp.json"}}
			return p
		}},
		{"deny_read", func(p Profile) Profile {
			// ~ holds the workspace, so it stays readable (Unenforced);
			// the workspace's own secrets are denied, and kept from
			// being renamed out of reach.
			p.DenyRead = []string{"/Users/dev/.ssh", "/Users/dev/.aws/credentials", "/Users/dev", ws + "/secrets/prod.env"}
			return p
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			profile, params := SeatbeltProfile(c.p(base).Access())
			got := profile + "\n;; parameters (sandbox-exec -D)\n" + strings.Join(params, "\n") + "\n"
			checkBalanced(t, profile)
			golden := filepath.Join("testdata", "seatbelt", c.name+".sb")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestSeatbeltProfileGolden -update)", err)
			}
			if got != string(want) {
				t.Errorf("profile for %s differs from %s (go test -update rewrites it):\n%s", c.name, golden, got)
			}
		})
	}
}

// A path is never text in the profile: one built to close the rule and
// allow everything changes nothing but a parameter's value.
func TestSeatbeltPathsAreParameters(t *testing.T) {
	evil := `/Users/dev/x") (allow default) ("`
	plain, _ := SeatbeltProfile(Profile{Workspace: "/Users/dev/proj", WritableRoots: []string{"/Users/dev/x"}}.Access())
	profile, params := SeatbeltProfile(Profile{Workspace: "/Users/dev/proj", WritableRoots: []string{evil}, DenyRead: []string{evil + "/secret"}}.Access())
	if strings.Contains(profile, "allow default") || strings.Contains(profile, "/Users/dev") {
		t.Fatalf("a path reached the profile's text:\n%s", profile)
	}
	if !slices.Contains(params, "-DWRITABLE_ROOT_1="+evil) {
		t.Fatalf("the root is not passed as a parameter: %q", params)
	}
	// Positive control: the same shape of access gives the same rules.
	if strings.Count(profile, "WRITABLE_ROOT_") != strings.Count(plain, "WRITABLE_ROOT_") {
		t.Fatalf("the rules changed with the path's text:\n%s\nvs\n%s", profile, plain)
	}
}

// The command line sandbox-exec gets: the profile, its parameters, then
// the command after "--" (a command starting with "-" stays a command).
func TestSeatbeltArgv(t *testing.T) {
	argv := SeatbeltArgv(Profile{Workspace: "/w"}.Access(), []string{"/bin/bash", "-c", "-x"})
	if argv[0] != SandboxExec || argv[1] != "-p" || !strings.HasPrefix(argv[2], "(version 1)") {
		t.Fatalf("argv starts %q", argv[:3])
	}
	i := slices.Index(argv, "--")
	if i < 0 || !slices.Equal(argv[i+1:], []string{"/bin/bash", "-c", "-x"}) {
		t.Fatalf("the command does not follow --: %q", argv)
	}
	for _, a := range argv[3:i] {
		if !strings.HasPrefix(a, "-D") {
			t.Fatalf("%q between the profile and -- is not a parameter", a)
		}
	}
}

func checkBalanced(t *testing.T, profile string) {
	t.Helper()
	depth := 0
	inString := false
	for _, line := range strings.Split(profile, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), ";") {
			continue
		}
		for _, r := range line {
			switch {
			case r == '"':
				inString = !inString
			case inString:
			case r == '(':
				depth++
			case r == ')':
				depth--
				if depth < 0 {
					t.Fatalf("unbalanced ')' in %q", line)
				}
			}
		}
	}
	if depth != 0 || inString {
		t.Fatalf("profile does not close its forms (depth %d, in string %v)", depth, inString)
	}
}

// A backend that reads Access (Seatbelt) protects what a scan of the real
// workspace finds at any depth, as the Linux mounts do; without the scan
// a nested control file would be writable on macOS.
func TestAccessProtectsWhatTheScanFinds(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{".git/config", "pkg/.coder/config.json", "web/.mcp.json", "src/main.go", ".env"} {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a := Profile{Workspace: ws, DenyReadPatterns: []string{".env"}}.Access()
	if a.Policy != WorkspaceWrite {
		t.Fatal("the workspace is not writable in build mode")
	}
	for _, want := range []string{".git/config", "pkg/.coder", "web/.mcp.json"} {
		if !slices.Contains(a.Protected, filepath.Join(ws, want)) {
			t.Errorf("%s is not protected: %v", want, a.Protected)
		}
	}
	if slices.Contains(a.Protected, filepath.Join(ws, "src/main.go")) {
		t.Errorf("an ordinary file is protected: %v", a.Protected)
	}
	if !slices.Contains(a.DenyRead, filepath.Join(ws, ".env")) {
		t.Errorf(".env is readable: %v", a.DenyRead)
	}
}
