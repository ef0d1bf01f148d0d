package sandbox

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoTestWorksInTheSandbox: `go test ./...` on a small module runs with
// the Go caches as writable roots, as coder's defaults make them.
func TestGoTestWorksInTheSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not installed")
	}
	out, err := exec.Command(gobin, "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	caches := strings.Fields(string(out))
	for _, l := range levels(t, LevelLandlock) {
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			writeTestFile(t, filepath.Join(w.ws, "go.mod"), "module example.com/tiny\n\ngo 1.22\n")
			writeTestFile(t, filepath.Join(w.ws, "tiny.go"), "package tiny\n\nfunc Add(a, b int) int { return a + b }\n")
			writeTestFile(t, filepath.Join(w.ws, "tiny_test.go"), "package tiny\n\nimport \"testing\"\n\n"+
				"func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n")
			p := w.profile(l)
			p.Env, p.WritableRoots = nil, caches // the real home and caches
			r := run(t, p, gobin+" test -count=1 ./... && "+gobin+" vet ./...")
			if r.code != 0 || !strings.Contains(r.stdout, "ok") {
				t.Fatalf("go test in the sandbox: %+v", r)
			}
		})
	}
}
