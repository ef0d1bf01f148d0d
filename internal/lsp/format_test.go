package lsp

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

func diag(line, col, endLine, endCol uint32, sev protocol.DiagnosticSeverity, msg string) diagnostic {
	return diagnostic{Range: protocol.Range{
		Start: protocol.Position{Line: line, Character: col}, End: protocol.Position{Line: endLine, Character: endCol}},
		Severity: sev, Message: msg, Source: "compiler", Code: "E1"}
}

// A problem is the same problem when lines above it come and go; another
// copy of it is new; one that changes its line's text is new.
func TestNewSinceIgnoresMovesNotCopies(t *testing.T) {
	before := problems([]diagnostic{diag(1, 4, 1, 5, protocol.SeverityError, "bad")}, "x\nvar a = 1\n")
	moved := problems([]diagnostic{diag(3, 4, 3, 5, protocol.SeverityError, "bad")}, "x\n\n\nvar a = 1\n")
	if got := newSince(moved, setOf(before)); len(got) != 0 {
		t.Errorf("a moved problem is new: %+v", got)
	}
	twice := problems([]diagnostic{diag(1, 4, 1, 5, protocol.SeverityError, "bad"), diag(2, 4, 2, 5, protocol.SeverityError, "bad")},
		"x\nvar a = 1\nvar a = 1\n")
	if got := newSince(twice, setOf(before)); len(got) != 1 || got[0].Line != 2 {
		t.Errorf("a second copy: %+v", got)
	}
	changed := problems([]diagnostic{diag(1, 4, 1, 5, protocol.SeverityError, "bad")}, "x\nvar a = 2\n")
	if got := newSince(changed, setOf(before)); len(got) != 1 {
		t.Errorf("a problem on a changed line: %+v", got)
	}
}

// Only errors are told, and warnings when asked for.
func TestReportedSeverities(t *testing.T) {
	ps := problems([]diagnostic{
		diag(0, 0, 0, 1, protocol.SeverityHint, "h"), diag(0, 0, 0, 1, protocol.SeverityWarning, "w"),
		diag(0, 0, 0, 1, protocol.SeverityError, "e"), diag(0, 0, 0, 1, 0, "unspecified")}, "x\n")
	if got := reported(ps, false); len(got) != 2 || got[0].Message != "e" && got[1].Message != "e" {
		t.Errorf("errors only: %+v", got)
	}
	if got := reported(ps, true); len(got) != 3 {
		t.Errorf("with warnings: %+v", got)
	}
}

// The code frame's caret sits under the range, whatever tabs and wide or
// astral characters come before it (LSP counts UTF-16 units).
func TestCodeFrame(t *testing.T) {
	text := "package m\n\n\tx := \"日本😀\" + y // z\n"
	// y is at 15 in UTF-16 units (tab, `x := "`, 日本, 😀 (2), `" + `), the
	// 15th character, the 18th cell (日本 and 😀 are wide).
	ps := problems([]diagnostic{diag(2, 15, 2, 16, protocol.SeverityError, "undefined: y\nmore")}, text)
	got := formatChecks([]fileCheck{{rel: "a.go", server: "gopls", probs: ps}})
	want := strings.Join([]string{
		"Language server (gopls) reports 1 new error in a.go:",
		"a.go:3:15: error: undefined: y more [E1]",
		"  3 | \tx := \"日本😀\" + y // z",
		"    | \t" + strings.Repeat(" ", 16) + "^",
	}, "\n")
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A range over several lines is underlined to the end of its first.
	ps = problems([]diagnostic{diag(0, 8, 2, 1, protocol.SeverityWarning, "w")}, text)
	got = formatChecks([]fileCheck{{rel: "a.go", server: "gopls", probs: ps, fresh: true}})
	if !strings.Contains(got, "1 current warning in a.go") || !strings.HasSuffix(got, "  1 | package m\n    |         ^") {
		t.Errorf("several lines:\n%s", got)
	}
}

// Many problems are cut, with a count of the rest.
func TestFormatCaps(t *testing.T) {
	var ds []diagnostic
	for i := range 13 {
		ds = append(ds, diag(uint32(i), 0, uint32(i), 1, protocol.SeverityError, "e"))
	}
	got := formatChecks([]fileCheck{{rel: "a.go", server: "gopls", probs: problems(ds, strings.Repeat("x\n", 13))}})
	if !strings.Contains(got, "13 new errors in a.go") || !strings.HasSuffix(got, "… and 3 more") {
		t.Errorf("got\n%s", got)
	}
}

func TestSpecMatches(t *testing.T) {
	s := Spec{Patterns: []string{"*.go", "web/**/*.ts"}}
	for rel, want := range map[string]bool{"a.go": true, "x/y/b.go": true, "web/a/b.ts": true, "a.ts": false, "go": false} {
		if s.matches(rel) != want {
			t.Errorf("%s: want %v", rel, want)
		}
	}
}

// People get one line per file in the call's summary.
func TestSummarize(t *testing.T) {
	ps := problems([]diagnostic{diag(0, 0, 0, 1, protocol.SeverityError, "e"), diag(0, 0, 0, 1, protocol.SeverityWarning, "w")}, "x\n")
	got := summarize([]fileCheck{{rel: "a.go", server: "gopls", probs: ps}, {rel: "b.py", server: "pyright", note: "slow"}, {rel: "c.go", server: "gopls"}})
	if want := "gopls: 1 new error and 1 new warning in a.go; pyright: b.py not checked"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
