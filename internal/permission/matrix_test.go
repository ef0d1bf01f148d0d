package permission

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/config"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMatrixGolden(t *testing.T) {
	perm := config.Permission{
		Tools:            map[string]string{"fetch": "ask", "mcp_github": "deny"},
		Bash:             []config.BashRule{{Pattern: "docker *", Action: "ask"}, {Pattern: "rm -rf /*", Action: "deny"}},
		CommandAllowlist: []string{"go generate ./..."},
	}
	for _, tc := range []struct {
		golden, preset string
		mode           agent.Mode
	}{
		{"matrix_balanced.golden", "balanced", agent.Build},
		{"matrix_plan.golden", "strict", agent.Plan},
	} {
		p := perm
		p.Preset = tc.preset
		e, err := newPolicy(PolicyOptions{Permission: p})
		if err != nil {
			t.Fatal(err)
		}
		e.AllowExact("bash", "make deploy")
		got := e.Matrix(tc.mode)
		path := filepath.Join("testdata", tc.golden)
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s differs (go test -run TestMatrixGolden -update):\n%s", tc.golden, got)
		}
	}
}
