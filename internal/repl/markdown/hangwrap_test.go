package markdown

import (
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/repl/style"
)

// A row wraps at words, its continuation under its last column; with too
// little room there, under its indentation; a short row is left alone.
func TestHangWrap(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		cols     int
		want     []string
	}{
		{"short", "  read   Read a file.", 40, []string{"  read   Read a file."}},
		{"hanging", "  read   Read a text file, numbered like cat.", 30,
			[]string{"  read   Read a text file,", "         numbered like cat."}},
		{"table row", "task-1   exited 0      12s  sleep 10; echo done now", 40,
			[]string{"task-1   exited 0      12s  sleep 10;", "                            echo done", "                            now"}},
		{"last column past the room", "  name  description      12345678901234567890 x", 40,
			[]string{"  name  description 12345678901234567890", "        x"}},
		{"too narrow to hang", "  some-long-name  a description that wraps", 24,
			[]string{"  some-long-name a", "  description that wraps"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := HangWrap(style.Style{}, tc.in, tc.cols)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			for _, row := range got {
				if style.Width(row) > tc.cols {
					t.Fatalf("row %q is wider than %d", row, tc.cols)
				}
			}
		})
	}
}
