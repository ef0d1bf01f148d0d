package orchestrator

import "testing"

// The language servers' word joins the verification line; their errors
// are said but do not turn a passing test run into a failure.
func TestWithLSP(t *testing.T) {
	for _, tt := range []struct{ line, lsp, want string }{
		{"verified: go test ./... (exit 0)", "", "verified: go test ./... (exit 0)"},
		{"verified: go test ./... (exit 0)", "LSP clean", "verified: go test ./... (exit 0), LSP clean"},
		{"verified: go test ./... (exit 0)", "LSP: 1 error in the edited files (a.go:3:1)",
			"verified: go test ./... (exit 0); LSP: 1 error in the edited files (a.go:3:1)"},
		{"not verified: no verify command", "LSP clean", "not verified: no verify command; LSP clean"},
		{"not verified: go test ./... (exit 1) after 2 attempts", "LSP: 2 errors in the edited files (a.go:1:1, b.go:2:2)",
			"not verified: go test ./... (exit 1) after 2 attempts; LSP: 2 errors in the edited files (a.go:1:1, b.go:2:2)"},
	} {
		if got := withLSP(tt.line, tt.lsp); got != tt.want {
			t.Errorf("withLSP(%q, %q) = %q, want %q", tt.line, tt.lsp, got, tt.want)
		}
	}
}
