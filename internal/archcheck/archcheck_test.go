package archcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/coder-agent/coder"

func repoTable(t *testing.T) map[string]Rule {
	t.Helper()
	md, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	table, err := ParseTable(md)
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// TestTheTableHolds: the code imports only what docs/ARCHITECTURE.md allows.
func TestTheTableHolds(t *testing.T) {
	vs, err := Check("../..", module, repoTable(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		t.Errorf("%s (docs/ARCHITECTURE.md)", v)
	}
}

// TestPlantedBadImportFails plants, in a copy of the layout, an import the
// table forbids (chat importing tools) and a package the table lacks.
func TestPlantedBadImportFails(t *testing.T) {
	root := t.TempDir()
	plant := func(dir, src string) {
		p := filepath.Join(root, dir, "x.go")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant("internal/tools", "package tools\nimport _ \""+module+"/internal/chat\"\n")
	plant("internal/chat", "package chat\nimport _ \""+module+"/internal/tools\"\n")
	plant("internal/newpkg", "package newpkg\n")
	plant("internal/chat/testdata", "package ignored\nimport _ \""+module+"/internal/app\"\n")
	vs, err := Check(root, module, repoTable(t))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	want := "chat imports tools, which its row does not allow;newpkg is not in the package table"
	if strings.Join(got, ";") != want {
		t.Fatalf("violations %q, want %q", got, want)
	}
}

func TestParseTable(t *testing.T) {
	table, err := ParseTable([]byte("# x\n\n| package | holds | may import |\n|---|---|---|\n" +
		"| `a`, `b/c` | things | `d`, `e` |\n| `app` | all | * |\n| `leaf` | | — |\n\nafter\n| `z` | | `q` |\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !table["a"].Allowed["d"] || !table["b/c"].Allowed["e"] || !table["app"].Any || len(table["leaf"].Allowed) != 0 {
		t.Fatalf("table %+v", table)
	}
	if _, ok := table["z"]; ok {
		t.Fatal("a row after the table was read")
	}
	if _, err := ParseTable([]byte("no table")); err == nil {
		t.Fatal("no table: no error")
	}
}
