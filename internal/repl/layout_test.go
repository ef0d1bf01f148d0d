package repl

import (
	"strings"
	"testing"
)

func plainStyle(s string) string { return s }

func TestLayoutInput(t *testing.T) {
	for _, tc := range []struct {
		name, prefix, text string
		cursor, cols       int
		rows               []string
		row, col           int
	}{
		{"fits", "> ", "hello", 5, 20, []string{"> hello"}, 0, 7},
		{"wraps by cells", "> ", "abcdefgh", 8, 5, []string{"> abc", "defgh", ""}, 2, 0},
		{"cursor inside", "> ", "abcdefgh", 4, 5, []string{"> abc", "defgh"}, 1, 1},
		{"wide character does not split", "> ", "中文字", 3, 5, []string{"> 中", "文字"}, 1, 4},
		{"wide character mid-row", "ab", "中文", 1, 5, []string{"ab中", "文"}, 1, 0},
		{"tab to the next stop", "> ", "a\tb", 3, 20, []string{"> a b"}, 0, 5},
		{"tab at the margin", "> ", "abc\tx", 5, 6, []string{"> abc ", "x"}, 1, 1},
		{"newline", "> ", "one\ntwo", 7, 20, []string{"> one", "two"}, 1, 3},
		{"prefix wider than the terminal", "[build] /a/very/long/path> ", "x", 1, 10, []string{"[build] /a", "/very/long", "/path> x"}, 2, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := layoutInput(tc.prefix, plainStyle, []rune(tc.text), tc.cursor, tc.cols)
			if strings.Join(l.rows, "|") != strings.Join(tc.rows, "|") || l.curRow != tc.row || l.curCol != tc.col {
				t.Fatalf("rows %q cursor %d,%d; want %q %d,%d", l.rows, l.curRow, l.curCol, tc.rows, tc.row, tc.col)
			}
			for _, r := range l.rows {
				if width(r) > tc.cols {
					t.Fatalf("row %q wider than %d", r, tc.cols)
				}
			}
		})
	}
}

func TestWidths(t *testing.T) {
	if got := expandTabs("a\tbc\td"); got != "a   bc  d" {
		t.Fatalf("expandTabs %q", got)
	}
	if got := truncate("中文字abc", 5); got != "中文…" || width(got) != 5 {
		t.Fatalf("truncate %q", got)
	}
	if plural(1, "step", "steps") != "1 step" || plural(2, "step", "steps") != "2 steps" || plural(0, "line", "lines") != "0 lines" {
		t.Fatal("plural")
	}
	if tokens(950) != "950" || tokens(1200) != "1.2k" || tokens(12345) != "12k" || tokens(128000) != "128k" || tokens(1500000) != "1.5M" {
		t.Fatal("tokens")
	}
}
