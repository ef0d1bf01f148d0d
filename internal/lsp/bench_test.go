package lsp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// goModule writes a module of n packages, each importing the one before
// it, and returns its root and a file in the middle package.
func goModule(b *testing.B, n int) (root, file string) {
	b.Helper()
	files := map[string]string{"go.mod": goMod}
	for i := range n {
		var src strings.Builder
		fmt.Fprintf(&src, "package p%d\n\n", i)
		if i > 0 {
			fmt.Fprintf(&src, "import \"example.com/m/p%d\"\n\n", i-1)
		}
		fmt.Fprintf(&src, "type T%d struct{ A, B int }\n\n", i)
		for f := range 20 {
			fmt.Fprintf(&src, "func F%d(x int) int {\n\tt := T%d{A: x, B: %d}\n\treturn t.A + t.B\n}\n\n", f, i, f)
		}
		if i > 0 {
			fmt.Fprintf(&src, "func Prev() int { return p%d.F0(1) }\n", i-1)
		}
		files[fmt.Sprintf("p%d/p.go", i)] = src.String()
	}
	root = writeTree(b, files)
	return root, filepath.Join(root, fmt.Sprintf("p%d", n/2), "p.go")
}

// BenchmarkGoplsEdit is the wall time an edit's result gains with a warm
// gopls on a 50-package module: BeforeEdit, the write, AfterEdit (ns/op),
// against the write alone (write-ns/op, timed inside the same loop). The
// first edit, which starts gopls and loads the module, is reported as
// first-edit-ms.
//
//	go test -run '^$' -bench GoplsEdit -benchtime 40x ./internal/lsp/
func BenchmarkGoplsEdit(b *testing.B) {
	if _, err := exec.LookPath("gopls"); err != nil {
		b.Skip("gopls is not installed")
	}
	for _, kind := range []string{"clean", "breaking"} {
		b.Run(kind, func(b *testing.B) {
			root, file := goModule(b, 50)
			m := New(Options{Root: root, Wait: time.Minute, StartWait: 5 * time.Minute,
				Servers: []Spec{{Name: "gopls", Command: "gopls", Patterns: []string{"*.go"}}}})
			defer m.Close()
			orig, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			variant := func(i int) string {
				if kind == "breaking" && i%2 == 1 {
					return string(orig) + "\nvar broken string = F0(1)\n"
				}
				return string(orig) + fmt.Sprintf("\n// edit %d\n", i)
			}
			start := time.Now()
			editTimed(b, m, file, variant(0))
			first := time.Since(start)
			var writes time.Duration
			b.ResetTimer()
			for i := range b.N {
				got, w := editTimed(b, m, file, variant(i+2))
				writes += w
				if want := kind == "breaking" && i%2 == 1; want != strings.Contains(got, "new error") {
					b.Fatalf("edit %d reported %q", i, got)
				}
			}
			b.ReportMetric(float64(writes.Nanoseconds())/float64(b.N), "write-ns/op")
			b.ReportMetric(float64(first.Milliseconds()), "first-edit-ms")
		})
	}
}
