package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// grepBenchPattern is searched for by the GrepGoSrc benchmarks; coder-bench
// sets GREP_BENCH_PATTERN so that its rg run searches for the same thing.
const grepBenchPattern = `func \w+\(ctx context\.Context`

// BenchmarkGrepGoSrcBuiltin searches the Go distribution's src tree (~11k
// files) with the built-in walker; BenchmarkGrepGoSrcRg with the rg backend
// (rg --json plus coder's parsing and filtering). Both report the number of
// matching lines as "matches", so equal results can be checked. Each
// iteration is a whole search as the tool runs it (ignore rules loaded,
// pattern compiled), without formatting the output.
//
//	go test -run '^$' -bench GrepGoSrc -benchtime 3x ./internal/tools/
func BenchmarkGrepGoSrcBuiltin(b *testing.B) { benchGrepGoSrc(b, grepBuiltin) }

func BenchmarkGrepGoSrcRg(b *testing.B) {
	if _, err := exec.LookPath("rg"); err != nil {
		b.Skip("rg (ripgrep) is not on PATH")
	}
	benchGrepGoSrc(b, grepRg)
}

func benchGrepGoSrc(b *testing.B, backend string) {
	root := goSrc(b)
	ws, err := NewWorkspace(root)
	if err != nil {
		b.Fatal(err)
	}
	pattern := grepBenchPattern
	if p := os.Getenv("GREP_BENCH_PATTERN"); p != "" {
		pattern = p
	}
	t := grepTool{ws: ws, backend: backend}
	ctx := context.Background()
	raw, _ := json.Marshal(grepArgs{Pattern: pattern})
	c := decodeCall(b, t, string(raw))
	if c.Failure != nil {
		b.Fatal(c.Failure.Content)
	}
	total := -1
	for b.Loop() {
		q, fail := t.query(c, c.Args.(*grepArgs))
		if fail != nil {
			b.Fatal(fail.Content)
		}
		set, err := t.search(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		if total >= 0 && set.total != total {
			b.Fatalf("%d matches, %d in an earlier iteration", set.total, total)
		}
		total = set.total
	}
	b.ReportMetric(float64(total), "matches")
}

// goSrc is $(go env GOROOT)/src.
func goSrc(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(root); err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	return root
}
