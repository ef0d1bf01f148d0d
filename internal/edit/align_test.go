package edit

import (
	"strings"
	"testing"
)

// The wrong-change guard refuses a replacement that changes lines the
// model's texts leave alone, or that does not read like new_string.
func TestUnfaithfulGuard(t *testing.T) {
	t.Parallel()
	content := "a\nb  \nc\n"
	region := candidate{0, len("a\nb  \n")}
	tests := []struct {
		name, repl, old, new string
		refused              bool
	}{
		{"only the changed line", "A\nb  \n", "a\nb\n", "A\nb\n", false},
		{"an unchanged line rewritten", "A\nb\n", "a\nb\n", "A\nb\n", true},
		{"not what the model wrote", "X\nb  \n", "a\nb\n", "A\nb\n", true},
		{"a line break dropped", "A\nb  ", "a\nb\n", "A\nb\n", true},
		{"re-indented and re-quoted reads the same", "A\nb  \n", "a\n  b\n", "A\n  b\n", false},
	}
	for _, tt := range tests {
		why := unfaithful(content, region, tt.repl, tt.old, tt.new, nil)
		if (why != "") != tt.refused {
			t.Errorf("%s: guard said %q", tt.name, why)
		}
	}
}

// A changed line keeps what the model did not change from the file's line,
// punctuation drift included, and undoes the model's typographic slips.
func TestKeepUnchanged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		old, file, new, want string
		slips                string
	}{
		{`say("hi")`, `say(“hi”)`, `say("hello")`, `say(“hello”)`, ""},
		{`a - b`, `a — b`, `a - c`, `a — c`, ""},
		{`log(“x”)`, `log("x")`, `log(“y”)`, `log("y")`, "“”"},
		{`wait...`, `wait…`, `wait... more`, `wait… more`, ""},
		{`wait...`, `wait…`, `wai`, `wai`, ""},
		{`x`, `x`, `y`, `y`, ""},
	}
	for _, tt := range tests {
		slips := map[rune]bool{}
		for _, r := range tt.slips {
			slips[r] = true
		}
		if got := keepUnchanged(tt.old, tt.file, tt.new, true, slips); got != tt.want {
			t.Errorf("keepUnchanged(%q, %q, %q) = %q, want %q", tt.old, tt.file, tt.new, got, tt.want)
		}
	}
}

// The model's indentation maps to the file's by the shift, or the unit
// ratio, the matched lines show; clashing lines place nothing.
func TestIndentMap(t *testing.T) {
	t.Parallel()
	spaces4 := fileIndent{unit: 4, spaced: 1}
	tabs := fileIndent{unit: 4, tabs: true, tabbed: 1}
	spaces2 := fileIndent{unit: 2, spaced: 1}
	tests := []struct {
		name                string
		old, region, model  string
		file                fileIndent
		ind, want           string
		unplaced, unchanged bool
	}{
		{"shift by one level", "        a\n            b", "    a\n        b", "", spaces4, "                ", "            ", false, false},
		{"shift keeps the model's spaces past it", "\ta", "a", "", tabs, "\t    ", "    ", false, false},
		{"spaces for tabs", "    a\n        b", "\ta\n\t\tb", "", tabs, "            ", "\t\t\t", false, false},
		{"two-space model, tab file, one level seen", "  a", "\ta", "  a\n    b", tabs, "    ", "\t\t", false, false},
		{"four-space model, two-space file", "    a", "  a", "    a\n        b", spaces2, "        ", "    ", false, false},
		{"one level seen, a shift", "        a", "    a", "        a\n            b", spaces4, "            ", "        ", false, false},
		{"flattened lines clash", "a\nb", "a\n    b", "", spaces4, "", "", true, false},
		{"no drift", "    a", "    a", "", spaces4, "", "", false, true},
	}
	for _, tt := range tests {
		m, shifted := newIndentMap(strings.Split(tt.old, "\n"), strings.Split(tt.region, "\n"), true, tt.model, tt.file)
		if shifted == tt.unchanged {
			t.Errorf("%s: shifted = %v", tt.name, shifted)
			continue
		}
		if tt.unchanged {
			continue
		}
		got, ok := m.apply(tt.ind, 0)
		if ok == tt.unplaced || (ok && got != tt.want) {
			t.Errorf("%s: apply(%q) = %q, %v; want %q", tt.name, tt.ind, got, ok, tt.want)
		}
	}
}

// new_string written in the file's indentation while old_string slipped
// is left alone; lines the change itself re-indents do not count.
func TestNewInFileIndent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		old, region, repl string
		want              bool
	}{
		{"only old slipped", "\tb:\n\t\tc: 1", "    b:\n        c: 1", "    b:\n        c: 2", true},
		{"both slipped", "\tb:\n\t\tc: 1", "    b:\n        c: 1", "\tb:\n\t\tc: 2", false},
		{"a kept line disagrees", "    x\n    y\n        z", "x\ny\n    z", "    x\n    z", false},
		// A sample the change dedents by the model's own shift lands where
		// the file has it; the heading it rewrites stays in old's frame.
		{"a rewritten line disagrees", "    Title\n        run(x)", "Title\n    run(x)", "    # Title\n    run(x)", false},
		{"only the characters tell", "\ta", "    a", "    b", true},
	}
	for _, tt := range tests {
		got := newInFileIndent(strings.Split(tt.old, "\n"), strings.Split(tt.region, "\n"), strings.Split(tt.repl, "\n"))
		if got != tt.want {
			t.Errorf("%s: %v", tt.name, got)
		}
	}
}

// The parser keeps what the model said about the file's end.
func TestParseHunkEnds(t *testing.T) {
	t.Parallel()
	ops, err := ParsePatch("*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n\\ No newline at end of file\n+b\n*** Update File: g\n@@\n x\n\n*** End of File\n*** Add File: h\n+only\n\\ No newline at end of file\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	h := ops[0].hunks[0]
	if oldNo, newNo := h.noFinalNewline(); !oldNo || newNo || !h.eof {
		t.Errorf("marker after -: old %v new %v eof %v", oldNo, newNo, h.eof)
	}
	if g := ops[1].hunks[0]; g.bareTail != 1 || len(g.old()) != 2 || len(g.withoutBareTail().old()) != 1 {
		t.Errorf("bare blank line before End of File: %+v", g)
	}
	if ops[2].Add != "only" {
		t.Errorf("added file %q", ops[2].Add)
	}
}
