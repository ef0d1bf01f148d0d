//go:build unix

package terminal

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/sandbox"
)

// TestCommandRoundTrip: what an editor's terminal is asked to run carries
// the profile but never its environment or secrets (those go as the
// terminal's environment, which the sandbox filters), and Run, given that
// command line, runs the command with its output and exit code.
func TestCommandRoundTrip(t *testing.T) {
	const secret = "sk-terminal-test-secret-value"
	ws := t.TempDir()
	p := sandbox.Profile{Workspace: ws, Env: []string{"PATH=" + os.Getenv("PATH"), "OPENAI_API_KEY=" + secret},
		Secrets: []string{secret}}
	exe, args, env, err := Command(p, []string{"/bin/sh", "-c", "echo out; echo err >&2; exit 4"})
	if err != nil {
		t.Fatal(err)
	}
	if self, _ := os.Executable(); exe != self || args[0] != Arg || args[2] != "--" {
		t.Fatalf("command line: %s %q", exe, args)
	}
	if !slices.Equal(env, p.Env) {
		t.Errorf("environment %q, want the profile's %q", env, p.Env)
	}
	if line := strings.Join(args, " "); strings.Contains(line, secret) || strings.Contains(line, "OPENAI_API_KEY") {
		t.Fatalf("the command line carries the environment or a secret: %q", args)
	}
	var out, errb bytes.Buffer
	code, err := Run(context.Background(), args[1:], &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	if code != 4 || out.String() != "out\n" || !strings.Contains(errb.String(), "err\n") {
		t.Errorf("code %d, stdout %q, stderr %q; want 4, \"out\\n\", \"err\\n\"", code, out.String(), errb.String())
	}
}

// TestRunRefusesBadCommandLines: a malformed profile or a missing "--" is
// the sandbox's own error, and nothing runs.
func TestRunRefusesBadCommandLines(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{`{"Workspace":"/tmp"}`, "true"}, "usage"},
		{[]string{`{"Workspace":"/tmp"}`, "x", "true"}, "usage"},
		{[]string{`{Workspace:/tmp}`, "--", "true"}, "bad profile"},
	} {
		if _, err := Run(context.Background(), tc.args, nil, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%q) = %v, want an error with %q", tc.args, err, tc.want)
		}
	}
}
