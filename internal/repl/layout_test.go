package repl

import (
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/repl/style"
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
				if style.Width(r) > tc.cols {
					t.Fatalf("row %q wider than %d", r, tc.cols)
				}
			}
		})
	}
}
