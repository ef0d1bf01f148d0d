// Package archcheck holds the check of the package table in
// docs/ARCHITECTURE.md: every package of the module has a row, and imports
// only the internal packages its row allows.
package archcheck

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Rule is one package's row: the internal packages it may import.
type Rule struct {
	Any     bool // "*": anything
	Allowed map[string]bool
}

// Violation is an import the table does not allow, or a package it lacks.
type Violation struct {
	Package, Import string
}

func (v Violation) String() string {
	if v.Import == "" {
		return v.Package + " is not in the package table"
	}
	return v.Package + " imports " + v.Import + ", which its row does not allow"
}

var codeName = regexp.MustCompile("`([^`]+)`")

// ParseTable reads the table whose header starts "| package |" from a
// Markdown document. Packages are named relative to internal/ ("llm/sse"),
// or from the module root for cmd/ ("cmd/coder").
func ParseTable(md []byte) (map[string]Rule, error) {
	table := map[string]Rule{}
	in := false
	for _, line := range strings.Split(string(md), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "| package |"):
			in = true
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			in = false
			continue
		case strings.HasPrefix(line, "|---"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			return nil, fmt.Errorf("table row %q: want 3 cells", line)
		}
		rule := Rule{Allowed: map[string]bool{}}
		switch may := strings.TrimSpace(cells[2]); may {
		case "*":
			rule.Any = true
		case "—", "-":
		default:
			for _, m := range codeName.FindAllStringSubmatch(may, -1) {
				rule.Allowed[m[1]] = true
			}
		}
		for _, m := range codeName.FindAllStringSubmatch(cells[0], -1) {
			table[m[1]] = rule
		}
	}
	if len(table) == 0 {
		return nil, errors.New("no package table (a header starting \"| package |\")")
	}
	return table, nil
}

// Check walks the module at root (module path module) and returns every
// import of a non-test file that the table does not allow, and every
// package without a row.
func Check(root, module string, table map[string]Rule) ([]Violation, error) {
	imports, err := packageImports(root, module)
	if err != nil {
		return nil, err
	}
	var out []Violation
	for pkg, imps := range imports {
		rule, ok := table[pkg]
		if !ok {
			out = append(out, Violation{Package: pkg})
			continue
		}
		for _, imp := range imps {
			if !rule.Any && !rule.Allowed[imp] {
				out = append(out, Violation{Package: pkg, Import: imp})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// packageImports maps each package directory with Go files (named as in the
// table) to the internal packages its non-test files import.
func packageImports(root, module string) (map[string][]string, error) {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg, ok := tableName(filepath.ToSlash(rel))
		if !ok {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		seen := out[pkg]
		for _, is := range f.Imports {
			p := strings.Trim(is.Path.Value, `"`)
			if name, ok := strings.CutPrefix(p, module+"/internal/"); ok && !contains(seen, name) {
				seen = append(seen, name)
			}
		}
		out[pkg] = seen
		return nil
	})
	return out, err
}

// tableName is how the table names the package in directory rel.
func tableName(rel string) (string, bool) {
	if name, ok := strings.CutPrefix(rel, "internal/"); ok {
		return name, true
	}
	if strings.HasPrefix(rel, "cmd/") {
		return rel, true
	}
	return "", false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
