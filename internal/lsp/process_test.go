package lsp

import (
	"strings"
	"testing"
)

// A failed server's report quotes the line of its stderr that names the
// problem: the first (rustup, a Go panic) and the last (a Python
// traceback), also when the middle was too long to keep.
func TestStderrGist(t *testing.T) {
	backtrace := strings.Repeat("   7: rustup::cli::proxy_mode::main\n", 300)
	for _, c := range []struct{ name, stderr, want string }{
		{"nothing", "\n \n", ""},
		{"one line", "cannot read its config\n", ": cannot read its config"},
		{"rustup", "error: Unknown binary 'rust-analyzer' in official toolchain 'stable'.\n\nStack backtrace:\n" + backtrace + "  99: main\n",
			": error: Unknown binary 'rust-analyzer' in official toolchain 'stable'. … 99: main"},
		{"traceback", "Traceback (most recent call last):\n  File \"x.py\", line 1\nModuleNotFoundError: No module named 'pylsp'\n",
			": Traceback (most recent call last): … ModuleNotFoundError: No module named 'pylsp'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tl tail
			for chunk := range strings.Lines(c.stderr) {
				_, _ = tl.Write([]byte(chunk))
			}
			if got := tl.gist(); got != c.want {
				t.Errorf("gist = %q, want %q", got, c.want)
			}
		})
	}
}
