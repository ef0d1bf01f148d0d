package helper

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestBinaryActsAsTheHelper: this test binary links the package, so
// started with Arg it is the helper, from init: a bad spec exits Failed
// with Prefix on stderr before anything runs; a good one runs the command
// and passes its exit code on.
func TestBinaryActsAsTheHelper(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("runs sh")
	}
	for _, tc := range []struct {
		args      []string
		code      int
		stderr    string
		linuxOnly bool // elsewhere a missing program fails the start (125)
	}{
		{[]string{"mode=x", "--", "sh", "-c", "echo ran"}, Failed, Prefix + `bad spec: unknown mode "x"`, false},
		{[]string{"mode=contain", "color=red", "--", "sh", "-c", "echo ran"}, Failed, Prefix + `bad spec: unknown key "color"`, false},
		{[]string{`{"mode":"contain"}`, "--", "sh", "-c", "echo ran"}, Failed, Prefix + "usage: ", false},
		{[]string{"mode=contain", "--", "sh", "-c", "echo ran >&2; exit 7"}, 7, "ran", false},
		{[]string{"mode=contain", "--", "no-such-program-x"}, 127, Prefix, true},
	} {
		if tc.linuxOnly && runtime.GOOS != "linux" {
			continue
		}
		cmd := exec.Command(os.Args[0], append([]string{Arg}, tc.args...)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !strings.HasPrefix(stderr.String(), tc.stderr) {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", tc.args, code, stderr.String(), tc.code, tc.stderr)
		}
	}
}
